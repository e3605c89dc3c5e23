package dev.cosmolite.conformance.support;

import java.lang.reflect.Method;
import java.util.Optional;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.platform.commons.support.AnnotationSupport;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * Runs a {@link KnownGap} test and turns its outcome around: a failure becomes a {@link KnownGapException} (aborted,
 * printed as "known gap"), a pass becomes a failure "known gap now passes: remove @KnownGap". Registered by the
 * annotation itself ({@code @ExtendWith} on {@link KnownGap}). Only the test method's body is covered: a failing
 * {@code @BeforeEach}/{@code @AfterEach} still fails the test.
 */
public final class KnownGapExtension implements InvocationInterceptor {

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> invocationContext,
                                    ExtensionContext extensionContext) throws Throwable {
        run(invocation, invocationContext.getExecutable());
    }

    @Override
    public void interceptTestTemplateMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> invocationContext,
                                            ExtensionContext extensionContext) throws Throwable {
        run(invocation, invocationContext.getExecutable());
    }

    private static void run(Invocation<Void> invocation, Method method) throws Throwable {
        Optional<KnownGap> gap = AnnotationSupport.findAnnotation(method, KnownGap.class);
        if (gap.isEmpty()) {
            invocation.proceed();
            return;
        }
        try {
            invocation.proceed();
        } catch (TestAbortedException | VirtualMachineError e) {
            throw e; // an assumption stays a skip; the JVM's own errors are not test outcomes
        } catch (Throwable failure) {
            throw new KnownGapException(gap.get().value(), failure);
        }
        throw new AssertionFailedError("known gap now passes: remove @KnownGap(\"" + gap.get().value() + "\")");
    }
}

package dev.cosmolite.conformance.support;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Prints one line per test ("ok - Class.method (123 ms)" / "not ok - Class.method: reason" / "known gap -
 * Class.method: reason: failure" for a failing {@link KnownGap} test / "skip - Class.method: reason") and a closing
 * "N passed, M failed, K known gaps" line, so that the result is visible even with Maven's -q.
 */
public final class ResultPrinter implements TestExecutionListener {
    private static final PrintStream OUT = System.out;
    private final ConcurrentHashMap<String, Long> started = new ConcurrentHashMap<>();
    private final AtomicInteger passed = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger skipped = new AtomicInteger();
    private final AtomicInteger knownGaps = new AtomicInteger();
    private final List<String> failures = new ArrayList<>();
    private final List<String> gaps = new ArrayList<>();

    private static String name(TestIdentifier id) {
        Optional<org.junit.platform.engine.TestSource> source = id.getSource();
        if (source.isPresent() && source.get() instanceof MethodSource) {
            MethodSource m = (MethodSource) source.get();
            String cls = m.getClassName();
            return cls.substring(cls.lastIndexOf('.') + 1) + "." + m.getMethodName();
        }
        if (source.isPresent() && source.get() instanceof ClassSource) {
            String cls = ((ClassSource) source.get()).getClassName();
            return cls.substring(cls.lastIndexOf('.') + 1);
        }
        return id.getDisplayName();
    }

    private static String reason(Throwable t) {
        if (t == null) return "";
        com.azure.cosmos.CosmosException e = t instanceof org.opentest4j.AssertionFailedError ? null : CosmosTest.cosmosCause(t);
        if (e != null) {
            String inner = e.getShortMessage() == null ? String.valueOf(e.getMessage()) : e.getShortMessage();
            inner = inner.replace("\r", "").replace('\n', ' ');
            if (inner.length() > 500) inner = inner.substring(0, 500) + " ...";
            return "unexpected CosmosException " + e.getStatusCode() + "/" + e.getSubStatusCode() + ": " + inner;
        }
        String message = String.valueOf(t.getMessage());
        String text = t.getClass().getSimpleName() + ": " + message;
        text = text.replace("\r", "").replace('\n', ' ');
        return text.length() > 900 ? text.substring(0, 900) + " ..." : text;
    }

    @Override
    public void executionStarted(TestIdentifier id) {
        started.put(id.getUniqueId(), System.nanoTime());
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
        if (id.isTest()) {
            skipped.incrementAndGet();
            OUT.println("skip - " + name(id) + ": " + reason);
        }
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        Long t0 = started.remove(id.getUniqueId());
        long ms = t0 == null ? 0 : (System.nanoTime() - t0) / 1_000_000;
        boolean ok = result.getStatus() == TestExecutionResult.Status.SUCCESSFUL;
        if (id.isTest() && result.getStatus() == TestExecutionResult.Status.ABORTED) {
            Throwable t = result.getThrowable().orElse(null);
            if (t instanceof KnownGapException) {
                knownGaps.incrementAndGet();
                String line = "known gap - " + name(id) + " (" + ms + " ms): " + ((KnownGapException) t).reason() + ": "
                    + reason(t.getCause());
                synchronized (gaps) { gaps.add(name(id) + ": " + ((KnownGapException) t).reason()); }
                OUT.println(line);
            } else {
                // an assumption that did not hold: a skip, printed with its reason
                skipped.incrementAndGet();
                OUT.println("skip - " + name(id) + " (" + ms + " ms): " + reason(t));
            }
        } else if (id.isTest()) {
            if (ok) {
                passed.incrementAndGet();
                OUT.println("ok - " + name(id) + " (" + ms + " ms)");
            } else {
                failed.incrementAndGet();
                String line = "not ok - " + name(id) + " (" + ms + " ms): " + reason(result.getThrowable().orElse(null));
                synchronized (failures) { failures.add(line); }
                OUT.println(line);
            }
        } else if (!ok && id.getSource().isPresent()) {
            // a class whose @BeforeAll/@AfterAll failed
            failed.incrementAndGet();
            String line = "not ok - " + name(id) + " (class setup/teardown): " + reason(result.getThrowable().orElse(null));
            synchronized (failures) { failures.add(line); }
            OUT.println(line);
        }
        OUT.flush();
    }

    @Override
    public void testPlanExecutionFinished(TestPlan plan) {
        if (!failures.isEmpty()) {
            OUT.println();
            OUT.println("failures:");
            for (String f : failures) OUT.println("  " + f);
        }
        if (!gaps.isEmpty()) {
            OUT.println();
            OUT.println("known gaps (@KnownGap, tracked in cosmolite's issues):");
            for (String g : gaps) OUT.println("  " + g);
        }
        OUT.println();
        OUT.println(passed.get() + " passed, " + failed.get() + " failed" + (skipped.get() > 0 ? ", " + skipped.get() + " skipped" : "")
            + ", " + knownGaps.get() + " known " + (knownGaps.get() == 1 ? "gap" : "gaps"));
        OUT.flush();
    }
}

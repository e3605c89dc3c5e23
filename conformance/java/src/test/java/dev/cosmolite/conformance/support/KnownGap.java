package dev.cosmolite.conformance.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test of a service behaviour cosmolite does not have yet (a "known gap", tracked in cosmolite's issues under
 * SDK parity). The test still runs: when it fails, {@link KnownGapExtension} reports it as aborted and
 * {@link ResultPrinter} prints {@code known gap - Class.method: <reason>: <failure>}; when it passes, it FAILS with
 * "known gap now passes: remove @KnownGap", so that the annotation is removed once cosmolite is fixed.
 * The annotation alone is enough: it registers the extension itself.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(KnownGapExtension.class)
public @interface KnownGap {
    /** What cosmolite does instead of the service's behaviour, in a few words. */
    String value();
}

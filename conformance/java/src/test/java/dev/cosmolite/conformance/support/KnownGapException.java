package dev.cosmolite.conformance.support;

import org.opentest4j.TestAbortedException;

/** A {@link KnownGap} test failed as expected: JUnit reports it as aborted, {@link ResultPrinter} as a known gap. */
public final class KnownGapException extends TestAbortedException {
    private static final long serialVersionUID = 1L;
    private final String reason;

    KnownGapException(String reason, Throwable failure) {
        super("known gap (" + reason + "): " + failure, failure);
        this.reason = reason;
    }

    public String reason() {
        return reason;
    }
}

package dev.spotkit.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * End-of-invocation signal: the harness arms it, the actor that handles the last hop or message signals it. The
 * harness parks (it does not spin), so it leaves both cores to the implementation under test.
 */
final class Completion {
    /** Written by the harness in {@link #arm}, before it sends the first message; read by handlers in signal. */
    private volatile CountDownLatch latch = new CountDownLatch(0);

    void arm(final int parties) {
        latch = new CountDownLatch(parties);
    }

    void signal() {
        latch.countDown();
    }

    void await(final String what) throws InterruptedException, TimeoutException {
        if (!latch.await(Jvm.INVOCATION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new TimeoutException(what + " did not finish within " + Jvm.INVOCATION_TIMEOUT_SECONDS
                + " s; " + latch.getCount() + " completion signal(s) missing");
        }
    }
}

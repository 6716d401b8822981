package dev.spotkit.bench;

/**
 * One benchmark scenario built on one implementation (raw queue, Spotkit, Pekko). Every implementation of a scenario
 * does the same fixed amount of work per {@link #runOnce()}: the same hop or message count, the same message
 * allocations, the same per-actor state updates.
 */
interface Workload extends AutoCloseable {
    /**
     * Runs one invocation's fixed work and returns when all of it has been handled.
     *
     * @throws Exception when the work did not finish within {@link Jvm#INVOCATION_TIMEOUT_SECONDS}.
     */
    void runOnce() throws Exception;

    /** Stops threads, dispatchers and actor systems. */
    @Override
    void close();
}

package dev.sharray.pool;

import java.io.IOException;

/** Real signals for the fault tests, sent as a user or the kernel's OOM killer would. */
final class Signals {
    private Signals() {
    }

    /**
     * Sends SIGKILL with {@code kill -9}, from this process or from a worker (tests run it inside tasks too).
     *
     * @param pid the process to kill
     * @return the exit status of {@code kill}: 0 when the signal was sent
     */
    static int kill9(long pid) throws IOException, InterruptedException {
        return new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();
    }
}

package dev.sharray.pool;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A parent JVM for {@link ClassDataArchiveTest}: SIGKILLs its first worker as soon as it runs java (long before
 * the worker can say hello), then builds a one-worker pool, runs one task and prints {@code RESULT <answer>}.
 */
public final class KilledAtStartChild {
    private static final String[] OWN_ARGUMENTS = ProcessHandle.current().info().arguments().orElseThrow();

    private KilledAtStartChild() {
    }

    public static void main(String[] args) {
        final Thread killer = new Thread(() -> {
            while (true) {
                // once it runs the worker's java: before, it is a copy of this JVM (the same program and arguments)
                // or the JDK's spawn helper, whose death fails the launch itself
                final Optional<ProcessHandle> worker = ProcessHandle.current().children()
                    .filter(c -> c.info().command().orElse("").endsWith("/bin/java")
                        && !Arrays.equals(c.info().arguments().orElse(OWN_ARGUMENTS), OWN_ARGUMENTS))
                    .findFirst();
                if (worker.isPresent()) {
                    worker.get().destroyForcibly();
                    System.out.println("KILLED " + worker.get().pid());
                    return;
                }
                Thread.onSpinWait();
            }
        }, "killer");
        killer.setDaemon(true);
        killer.start();
        try (ProcessPool pool = ProcessPool.builder().workers(1).build()) {
            System.out.println("RESULT " + pool.map((Integer x) -> x + 1, List.of(41)));
        }
    }
}

package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * A parent JVM for {@link ExitWithPoolOpenTest}, ended there with SIGTERM. Prints {@code "folder "} and the pool's
 * folder, then: with {@code "starting <pause file>"} starts a pool of 2 whose workers pause before their
 * {@code main} ({@code -XX:+PauseAtStartup} until that file is deleted), so their ring and argument files stay, as
 * while a pool starts; with {@code "open"} starts a pool of 2, runs a long task, and prints {@code "ready"} once the
 * pool's doorbell socket is bound; with {@code "binding"} as {@code "open"}, but its doorbell's binder pauses for a
 * second right after binding, having printed {@code "bound"}; with {@code "holding"} starts a pool of 2 whose two
 * tasks each hold an array of the parent's (each prints {@code "holding"}) and sleep; with {@code "gracefulHook"} a
 * pool of 1 runs a 2 s task (it prints {@code "started"}) and the program's own shutdown hook closes the pool and prints
 * the task's outcome; with {@code "exitInCallback"} a task's callback calls {@code System.exit(1)} if it fails.
 */
public final class PoolAtExitParent {
    private PoolAtExitParent() {
    }

    public static void main(String[] args) throws Exception {
        final Path folder = SharedArrays.processFolder(); // the pool's: the root is -Dsharray.tempFolder
        System.out.println("folder " + folder);
        System.out.flush();
        if (args[0].equals("starting")) {
            ProcessPool.builder().workers(2)
                .jvmOptions("-XX:+UnlockDiagnosticVMOptions", "-XX:+PauseAtStartup", "-XX:PauseAtStartupFile=" + args[1])
                .build(); // waits for HELLOs that never come
        } else if (args[0].equals("gracefulHook")) {
            // the usual shutdown hook of a program: close the pool, which lets running tasks finish
            final ProcessPool pool = ProcessPool.create(1);
            final java.util.concurrent.CompletableFuture<Integer> task = pool.submit((Integer x) -> {
                System.out.println("started");
                System.out.flush();
                Thread.sleep(2_000);
                return x + 41;
            }, 1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                pool.close();
                String outcome;
                try {
                    outcome = String.valueOf(task.getNow(null));
                } catch (RuntimeException e) {
                    outcome = e.toString();
                }
                System.out.println("user hook: task " + outcome);
                System.out.flush();
            }));
        } else if (args[0].equals("exitInCallback")) {
            // a failed task ends the program, a common pattern; the program ends first, the task still running
            final ProcessPool pool = ProcessPool.create(1);
            pool.submit((Integer x) -> {
                System.out.println("started");
                System.out.flush();
                Thread.sleep(60_000);
                return x;
            }, 1).whenComplete((r, e) -> {
                if (e != null) {
                    System.exit(1);
                }
            });
            Thread.sleep(600_000);
        } else if (args[0].equals("holding")) {
            final SharedArray array = SharedArray.create(DType.FLOAT64, 1 << 20);
            final ProcessPool pool = ProcessPool.create(2);
            for (int i = 0; i < 2; i++) {
                pool.submit((SharedArray a) -> {
                    System.out.println("holding " + a.size());
                    System.out.flush();
                    Thread.sleep(600_000);
                    return 0;
                }, array);
            }
        } else {
            if (args[0].equals("binding")) {
                // holds the binder between binding the doorbell and what follows, as a slow thread would be while a
                // SIGTERM ends the JVM; the test sends it once this prints "bound"
                ResultDoorbell.afterBind = () -> {
                    System.out.println("bound");
                    System.out.flush();
                    try {
                        Thread.sleep(1_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                };
            }
            final ProcessPool pool = ProcessPool.create(2);
            pool.submit((Integer x) -> {
                Thread.sleep(600_000);
                return x;
            }, 1);
            // the result thread binds the doorbell after ~0.2 s of waiting for the answer
            while (!hasDoorbell(folder)) {
                Thread.sleep(10);
            }
            System.out.println("ready");
            System.out.flush();
        }
        Thread.sleep(600_000);
    }

    private static boolean hasDoorbell(Path folder) throws Exception {
        try (Stream<Path> s = Files.list(folder)) {
            return s.anyMatch(f -> f.getFileName().toString().endsWith(".bell"));
        }
    }
}

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
 * tasks each hold an array of the parent's (each prints {@code "holding"}) and sleep.
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

package dev.sharray.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.Stream;

/**
 * The launcher's class-data training run, not a user command: runs every kind of subcommand once on tiny
 * inputs in one JVM, so the class list it dumps covers what any {@code sharray} run loads. Exits non-zero
 * when a step fails (the launcher then simply runs without an archive).
 */
public final class CdsTraining {
    private CdsTraining() {
    }

    /**
     * @param args ignored
     * @throws IOException when the scratch folder cannot be used
     */
    public static void main(String[] args) throws IOException {
        Path dir = Files.createTempDirectory("sharray-cds-training");
        // removes the scratch folder however the JVM ends: System.exit below, or Ctrl-C during the training
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(dir), "sharray-cds-training-clean-up"));
        int code;
        try {
            Path input = dir.resolve("input.bin");
            byte[] bytes = new byte[(1 << 20) + 7];
            new Random(1).nextBytes(bytes);
            Files.write(input, bytes);
            Path shards = dir.resolve("shards");
            code = step("demo", "--size", "4M", "--workers", "1", "--quiet");
            code |= step("ec", "encode", input.toString(), "-o", shards.toString(), "--workers", "1", "--quiet");
            Files.delete(shards.resolve("shard-00.sre"));
            code |= step("ec", "verify", shards.toString(), "--quiet") == Main.FAILURE ? 0 : 1; // one shard missing
            code |= step("ec", "repair", shards.toString(), "--workers", "1", "--quiet");
            code |= step("ec", "decode", shards.toString(), "-o", dir.resolve("output.bin").toString(), "--workers", "1", "--quiet");
            code |= step("ls");
            code |= step("clean", "--dry-run");
            code |= step("--help");
        } catch (IOException | RuntimeException e) {
            code = 1; // the scratch folder goes with the shutdown hook, as on Ctrl-C
        }
        System.out.flush();
        System.exit(code == 0 ? Main.OK : Main.FAILURE);
    }

    private static int step(String... args) {
        return Main.run(args);
    }

    private static void deleteQuietly(Path dir) {
        try {
            deleteTree(dir);
        } catch (IOException | UncheckedIOException ignored) {
            // best effort while the JVM is stopping
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}

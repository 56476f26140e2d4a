package dev.sharray.cli;

import dev.sharray.JvmFlags;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** Runs {@code sharray} in a real child JVM with the project's flags, as the launcher does. */
final class Cli {
    private Cli() {
    }

    /**
     * What a run produced.
     *
     * @param exit   exit code
     * @param out    stdout
     * @param err    stderr without the JVM's incubator-module warning
     */
    record Result(int exit, String out, String err) {
        List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).toList();
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /**
     * @param tempFolder the sharray temp root for the child (isolates its arrays), or null
     * @param args       command-line arguments
     * @return the result
     */
    static Result run(Path tempFolder, String... args) throws IOException, InterruptedException {
        return run(true, tempFolder, args);
    }

    /**
     * Like {@link #run(Path, String...)} but codes on threads in the child instead of worker JVMs
     * ({@code SHARRAY_PARALLEL=threads}), for tests about something else than the pool.
     */
    static Result runThreads(Path tempFolder, String... args) throws IOException, InterruptedException {
        return run(false, tempFolder, args);
    }

    /** Like {@link #runThreads} with {@code cwd} as the child's working directory. */
    static Result runThreadsIn(Path cwd, Path tempFolder, String... args) throws IOException, InterruptedException {
        return run(false, tempFolder, cwd, args);
    }

    private static Result run(boolean pool, Path tempFolder, String... args) throws IOException, InterruptedException {
        return run(pool, tempFolder, null, args);
    }

    private static Result run(boolean pool, Path tempFolder, Path cwd, String... args) throws IOException, InterruptedException {
        ProcessBuilder pb = builder(pool, tempFolder, args);
        if (cwd != null) {
            pb.directory(cwd.toFile());
        }
        Process p = pb.start();
        p.getOutputStream().close();
        CompletableFuture<String> out = drain(p.getInputStream());
        CompletableFuture<String> err = drain(p.getErrorStream());
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("sharray " + String.join(" ", args) + " did not finish");
        }
        String e = err.join().lines().filter(l -> !l.startsWith("WARNING: Using incubator modules"))
            .collect(Collectors.joining("\n", "", "\n"));
        return new Result(p.exitValue(), out.join(), e.equals("\n") ? "" : e);
    }

    /**
     * Starts the CLI without waiting (for tests that signal it mid-run); the caller drains or ignores its
     * output (it goes to files here, so the child never blocks on a full pipe).
     */
    static Process start(Path tempFolder, Path output, String... args) throws IOException {
        ProcessBuilder pb = builder(true, tempFolder, args);
        pb.redirectOutput(output.toFile()).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.PIPE);
        return pb.start();
    }

    private static ProcessBuilder builder(boolean pool, Path tempFolder, String... args) {
        List<String> options = new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        if (tempFolder != null) {
            options.add("-Dsharray.tempFolder=" + tempFolder);
            options.add("-Djava.io.tmpdir=" + tempFolder);
        }
        ProcessBuilder pb = new ProcessBuilder(JvmFlags.javaCommand(options, Main.class.getName(), args));
        pb.environment().put("SHARRAY_PROGRESS_PLAIN", "1");
        if (pool) {
            pb.environment().remove("SHARRAY_PARALLEL");
        } else {
            pb.environment().put("SHARRAY_PARALLEL", "threads");
        }
        return pb;
    }

    private static CompletableFuture<String> drain(InputStream in) {
        CompletableFuture<String> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try (in) {
                f.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                f.complete("");
            }
        }, "cli-drain");
        t.setDaemon(true);
        t.start();
        return f;
    }
}

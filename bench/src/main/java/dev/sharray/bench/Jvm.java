package dev.sharray.bench;

import dev.sharray.JvmFlags;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A helper JVM started from a benchmark: the same JDK and classpath, the project's JVM flags, a main class
 * and a line protocol over stdin/stdout. Its stderr is inherited.
 */
public final class Jvm implements AutoCloseable {
    private final Process process;
    private final BufferedReader out;
    private final OutputStream rawIn;
    private final PrintStream in;

    private Jvm(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.rawIn = process.getOutputStream();
        this.in = new PrintStream(rawIn, false, StandardCharsets.UTF_8);
    }

    /**
     * @param mainClass class with a {@code main} method on this JVM's classpath
     * @param jvmOptions extra options (heap size, properties)
     * @param args program arguments
     * @return the started JVM
     * @throws IOException when it cannot start
     */
    public static Jvm start(Class<?> mainClass, List<String> jvmOptions, String... args) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(JvmFlags.javaCommand(jvmOptions, mainClass.getName(), args));
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        return new Jvm(pb.start());
    }

    /** @return the child's stdin, for binary protocols */
    public OutputStream stdin() {
        return rawIn;
    }

    /**
     * Sends one line and flushes.
     *
     * @param line the line
     */
    public void send(String line) {
        in.println(line);
        in.flush();
    }

    /**
     * @return the next stdout line
     * @throws IOException when the child exited first
     */
    public String readLine() throws IOException {
        String line = out.readLine();
        if (line == null) {
            throw new IOException("helper JVM exited before answering (" + process.info().commandLine().orElse("?") + ")");
        }
        return line;
    }

    /**
     * Reads lines until one starts with {@code prefix}.
     *
     * @param prefix expected start
     * @return the rest of that line
     * @throws IOException when the child exited first
     */
    public String expect(String prefix) throws IOException {
        while (true) {
            String line = readLine();
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length());
            }
        }
    }

    /** Closes stdin (the child's signal to release and exit) and waits for it. */
    @Override
    public void close() {
        try {
            in.close();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}

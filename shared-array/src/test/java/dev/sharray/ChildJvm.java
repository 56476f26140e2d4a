package dev.sharray;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real child JVM running a main class from the test classpath with the project's JVM flags, talking
 * line by line over stdin/stdout. Tests in other modules reuse it through the test-jar.
 */
public final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final BufferedReader out;
    private final PrintWriter in;

    private ChildJvm(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
    }

    /**
     * Starts {@code mainClass} with {@code args}; stderr goes to a file next to the surefire reports.
     *
     * @param mainClass a class with a main method on the test classpath
     * @param jvmOptions extra options such as system properties
     * @param args program arguments
     * @return the running child
     */
    public static ChildJvm start(Class<?> mainClass, List<String> jvmOptions, String... args) throws IOException {
        return start(mainClass, jvmOptions, Map.of(), args);
    }

    /**
     * Like {@link #start(Class, List, String...)}, with variables added to the child's environment (such as
     * {@code LD_PRELOAD}).
     *
     * @param mainClass   a class with a main method on the test classpath
     * @param jvmOptions  extra options such as system properties
     * @param environment variables to add or replace
     * @param args        program arguments
     * @return the running child
     */
    public static ChildJvm start(Class<?> mainClass, List<String> jvmOptions, Map<String, String> environment,
                                 String... args) throws IOException {
        List<String> options = new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        String tempFolder = System.getProperty("sharray.tempFolder");
        if (tempFolder != null) {
            options.add("-Dsharray.tempFolder=" + tempFolder);
        }
        options.addAll(jvmOptions);
        List<String> cmd = JvmFlags.javaCommand(options, mainClass.getName(), args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(environment);
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        return new ChildJvm(pb.start());
    }

    /**
     * Like {@link #start(Class, List, String...)}, with the java command run by {@code wrapper} (its words, then the
     * java command's), such as {@code unshare} to run the child in namespaces of its own.
     *
     * @param wrapper    the command that runs the java command given as its last arguments
     * @param mainClass  a class with a main method on the test classpath
     * @param jvmOptions extra options such as system properties
     * @param args       program arguments
     * @return the running child (its pid is the wrapper's)
     */
    static ChildJvm startWrapped(List<String> wrapper, Class<?> mainClass, List<String> jvmOptions, String... args)
            throws IOException {
        List<String> options = new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        String tempFolder = System.getProperty("sharray.tempFolder");
        if (tempFolder != null) {
            options.add("-Dsharray.tempFolder=" + tempFolder);
        }
        options.addAll(jvmOptions);
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.addAll(JvmFlags.javaCommand(options, mainClass.getName(), args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        return new ChildJvm(pb.start());
    }

    /** @return the child's process */
    public Process process() {
        return process;
    }

    /** @return the child's pid */
    public long pid() {
        return process.pid();
    }

    /** Sends one line to the child's stdin. */
    public void send(String line) {
        in.println(line);
    }

    /** Reads the next stdout line, failing if the child exits first. */
    public String readLine() throws IOException {
        String line = out.readLine();
        if (line == null) {
            throw new IOException("child exited (" + exitCodeOrRunning() + ") before answering");
        }
        return line;
    }

    /** Reads lines until one starts with {@code prefix}; returns the rest of it. */
    public String expect(String prefix) throws IOException {
        while (true) {
            String line = readLine();
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length());
            }
        }
    }

    private String exitCodeOrRunning() {
        try {
            return process.waitFor(2, TimeUnit.SECONDS) ? "exit code " + process.exitValue() : "still running";
        } catch (InterruptedException e) {
            return "interrupted";
        }
    }

    /** Kills the child with SIGKILL ({@code kill -9}) and waits for it. */
    public void kill9() throws Exception {
        new ProcessBuilder("kill", "-9", Long.toString(pid())).inheritIO().start().waitFor();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** @return {pid, start time} of a real process that has ended: an {@link ArrayAgent} started and killed */
    static long[] endedProcess() throws Exception {
        try (ChildJvm child = start(ArrayAgent.class, List.of())) {
            final long pid = Long.parseLong(child.expect("ready "));
            final long start = ProcessIdentity.startOf(pid);
            if (start == 0) {
                throw new IllegalStateException("the start time of child " + pid + " is unreadable");
            }
            child.kill9();
            return new long[] {pid, start};
        }
    }

    /** Closes stdin and waits for a normal exit. */
    public int finish() throws InterruptedException {
        in.close();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("child did not exit");
        }
        return process.exitValue();
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

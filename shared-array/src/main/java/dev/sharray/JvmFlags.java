package dev.sharray;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The project's JVM flags, from the single flag file {@code config/jvm.flags} (carried in this jar as
 * {@code dev/sharray/jvm.flags}). Lines tagged {@code [jdk24+]} apply only on JDK 24 and later. Anything
 * that starts a JVM (worker pools, tests, benchmarks) uses this list.
 */
public final class JvmFlags {
    private static final String RESOURCE = "/dev/sharray/jvm.flags";
    private static final String JDK24_TAG = "[jdk24+]";

    private JvmFlags() {
    }

    /**
     * Prints the flags as a java argfile, one per line, for the running JDK (or for the feature version given as
     * the argument), so a program built against the published jars can be started with them:
     * {@code java -cp sharray-shared-array.jar dev.sharray.JvmFlags > sharray.args}, then
     * {@code java @sharray.args -cp ... my.Main}. Needs no flags itself.
     *
     * @param args nothing, or a JDK feature version such as {@code 25}
     */
    public static void main(String[] args) {
        if (args.length > 1 || args.length == 1 && !args[0].matches("[1-9][0-9]{0,2}")) {
            System.err.println("usage: java -cp <sharray-shared-array jar> dev.sharray.JvmFlags [jdk feature version]");
            System.exit(2);
        }
        final int feature = args.length == 0 ? Runtime.version().feature() : Integer.parseInt(args[0]);
        for (String flag : forFeatureVersion(feature)) {
            System.out.println(flag);
        }
        if (System.out.checkError()) {
            System.exit(1);
        }
    }

    /** @return the flags for the running JDK's feature version */
    public static List<String> forCurrentJvm() {
        return forFeatureVersion(Runtime.version().feature());
    }

    /**
     * The command line of a JVM like this one (same {@code java}, this classpath, the project's flags and
     * {@code -Dchronicle.analytics.disable=true}) running {@code mainClass}.
     *
     * @param jvmOptions extra options, after the project's flags so they can override them
     * @param mainClass a class with a main method on this JVM's classpath
     * @param args program arguments
     * @return the command, ready for {@link ProcessBuilder}
     */
    public static List<String> javaCommand(List<String> jvmOptions, String mainClass, String... args) {
        return javaCommand(System.getProperty("java.class.path"), jvmOptions, mainClass, args);
    }

    /**
     * The same with another classpath (a child that must see only jars, say).
     *
     * @param classpath  the child's classpath
     * @param jvmOptions extra options, after the project's flags so they can override them
     * @param mainClass  a class with a main method on {@code classpath}
     * @param args       program arguments
     * @return the command, ready for {@link ProcessBuilder}
     */
    public static List<String> javaCommand(String classpath, List<String> jvmOptions, String mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(forCurrentJvm());
        cmd.add("-Dchronicle.analytics.disable=true");
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * @param feature a JDK feature version such as 17 or 25
     * @return the flags for that JDK
     */
    public static List<String> forFeatureVersion(int feature) {
        List<String> flags = new ArrayList<>();
        try (InputStream in = JvmFlags.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the classpath");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = r.readLine()) != null) {
                line = line.trim();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                if (line.startsWith(JDK24_TAG)) {
                    if (feature < 24) {
                        continue;
                    }
                    line = line.substring(JDK24_TAG.length()).trim();
                }
                flags.add(line);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return flags;
    }
}

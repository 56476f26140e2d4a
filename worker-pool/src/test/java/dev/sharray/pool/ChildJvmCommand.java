package dev.sharray.pool;

import dev.sharray.JvmFlags;

import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/** The command line of a child JVM in a test: this JDK's java, the project's flags, a classpath and a main class. */
final class ChildJvmCommand {
    private ChildJvmCommand() {
    }

    /**
     * @param classpath  the child's classpath
     * @param properties extra {@code -D} options, each {@code name=value}
     * @param mainClass  the class to run
     * @param args       its arguments
     * @return the command
     */
    static List<String> of(String classpath, List<String> properties, Class<?> mainClass, String... args) {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JvmFlags.forCurrentJvm());
        cmd.add("-Dchronicle.analytics.disable=true");
        for (String p : properties) {
            cmd.add("-D" + p);
        }
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }
}

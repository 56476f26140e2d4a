package dev.sharray.cli;

import dev.sharray.JvmFlags;
import dev.sharray.LaunchJar;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Manifest;

/**
 * The launcher's jar writer, not a user command: writes the {@link LaunchJar} the {@code sharray} command starts
 * its JVM from ({@code java -jar}), for this JVM's classpath and {@link Main}, and prints the flags the manifest
 * carries, one per line, which the launcher then leaves off the command line (so the CLI's JVM keeps the JDK's
 * archived module graph). Run once per build, beside the copy of the jars the launcher runs from.
 */
public final class CliLaunchJar {
    private CliLaunchJar() {
    }

    /**
     * @param args the jar to write
     * @throws IOException when it cannot be written (the launcher then runs without it)
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: CliLaunchJar <jar to write>");
            System.exit(64);
        }
        final Path jar = Path.of(args[0]).toAbsolutePath();
        final List<String> flags = JvmFlags.forCurrentJvm();
        final List<String> rest = new ArrayList<>();
        final Manifest manifest = LaunchJar.manifest(jar.getParent().toRealPath(), Main.class.getName(),
            LaunchJar.expand(System.getProperty("java.class.path")), flags, rest);
        // readable by all, as the jars copied beside it: another user may run a checkout they cannot build
        LaunchJar.write(jar, manifest, "rw-r--r--");
        for (String f : flags) {
            if (!rest.contains(f)) {
                System.out.println(f);
            }
        }
    }
}

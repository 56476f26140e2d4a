package dev.sharray.pool;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The project's JVM flags, read from the classpath resource {@code dev/sharray/jvm.flags} (the single
 * flag file, shipped in the shared-array jar). A line tagged {@code [jdkNN+]} applies only when the
 * running JDK's feature version is at least NN; blank lines and {@code #} comments are skipped.
 */
final class JvmFlags {
    static final String RESOURCE = "dev/sharray/jvm.flags";
    private static final Pattern TAG = Pattern.compile("^\\[jdk(\\d+)\\+]\\s*(.*)$");

    private JvmFlags() {
    }

    /** @return the flags for the running JDK */
    static List<String> forCurrentJdk() {
        final ClassLoader loader = JvmFlags.class.getClassLoader();
        try (InputStream in = loader.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("classpath resource " + RESOURCE + " not found: is sharray-shared-array on the classpath?");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), Runtime.version().feature());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }

    /**
     * @param text    the flag file's content
     * @param feature the JDK feature version the flags are for
     * @return the flags that apply, in file order
     */
    static List<String> parse(String text, int feature) {
        final List<String> flags = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new java.io.StringReader(text))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                line = line.strip();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                final Matcher m = TAG.matcher(line);
                if (m.matches()) {
                    if (feature >= Integer.parseInt(m.group(1))) {
                        flags.add(m.group(2).strip());
                    }
                } else {
                    flags.add(line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return flags;
    }
}

package dev.sharray.bench;

import dev.sharray.JvmFlags;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs JMH like {@code org.openjdk.jmh.Main} with the same command line, but appends the project's JVM
 * flags ({@code config/jvm.flags}, as {@link JvmFlags#forCurrentJvm()} reads them from the classpath) to
 * every forked benchmark JVM. {@code @Fork(jvmArgsAppend = ...)} cannot read a file; this can, so the
 * flags live in one place. Used by {@code bench/run-jmh.sh}.
 */
public final class JmhLauncher {
    private JmhLauncher() {
    }

    /**
     * @param args JMH command-line options ({@code -h} lists them); {@code -jvmArgsAppend} is kept and
     *     extended with the project flags
     * @throws Exception when JMH fails
     */
    public static void main(String[] args) throws Exception {
        CommandLineOptions cmd = new CommandLineOptions(args);
        if (cmd.shouldHelp() || cmd.shouldList() || cmd.shouldListWithParams() || cmd.shouldListProfilers()
            || cmd.shouldListResultFormats()) {
            org.openjdk.jmh.Main.main(args);
            return;
        }
        List<String> append = new ArrayList<>(forkFlags());
        Collection<String> userAppend = cmd.getJvmArgsAppend().orElse(List.of());
        append.addAll(userAppend);
        Options options = new OptionsBuilder().parent(cmd).jvmArgsAppend(append.toArray(new String[0])).build();
        new Runner(options).run();
    }

    /** @return the JVM options every forked benchmark JVM and every helper JVM gets */
    public static List<String> forkFlags() {
        List<String> flags = new ArrayList<>(JvmFlags.forCurrentJvm());
        flags.add("-Dchronicle.analytics.disable=true");
        return flags;
    }
}

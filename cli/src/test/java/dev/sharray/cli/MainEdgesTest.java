package dev.sharray.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.JvmFlags;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What the command does around its subcommands: their version option, lost output, an Error. */
class MainEdgesTest {

    /** Every subcommand's help offers {@code -V}; it printed nothing and exited 0 (picocli does not pass the version down). */
    @Test
    void everySubcommandsVersionOptionPrintsTheVersion() {
        for (List<String> command : List.of(List.of("ls"), List.of("clean"), List.of("demo"), List.of("ec"),
            List.of("ec", "encode"), List.of("ec", "decode"), List.of("ec", "verify"), List.of("ec", "repair"))) {
            final CommandLine cl = Main.commandLine();
            final StringWriter out = new StringWriter();
            cl.setOut(new PrintWriter(out));
            final List<String> args = new java.util.ArrayList<>(command);
            args.add("-V");
            assertEquals(0, cl.execute(args.toArray(new String[0])), command.toString());
            assertEquals("sharray 0.1.0", out.toString().strip(), command.toString());
        }
    }

    /** Output that cannot be written ({@code > /dev/full}) was lost with exit 0. */
    @Test
    void aStandardOutputThatCannotBeWrittenFailsTheCommand(@TempDir Path root) throws Exception {
        final Process p = new ProcessBuilder(JvmFlags.javaCommand(List.of("-Dsharray.tempFolder=" + root),
            Main.class.getName(), "--help")).redirectOutput(new File("/dev/full")).start();
        final String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(Main.FAILURE, p.exitValue(), err);
        assertTrue(err.contains("sharray: cannot write to standard output"), err);
    }

    /** A mistyped command names the nearest one (new-user review 50: "Unmatched argument ... 'lss'" alone). */
    @Test
    void aMistypedCommandSuggestsTheNearest() {
        final java.io.PrintStream before = System.err;
        final java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
        final int code;
        try {
            code = Main.run(Main.commandLine(), "lss");
        } finally {
            System.setErr(before);
        }
        final String said = err.toString(StandardCharsets.UTF_8);
        assertEquals(Main.USAGE, code, said);
        assertTrue(said.startsWith("sharray: Unmatched argument at index 0: 'lss'") && said.contains("Did you mean")
            && said.contains("ls"), said);
    }

    /** A command that fails with an Error: picocli left it unhandled, a raw stack trace, the friendly line unused. */
    @Test
    void anErrorIsOneLineAndExitCodeOne() {
        @CommandLine.Command(name = "fails")
        final class Fails implements java.util.concurrent.Callable<Integer> {
            @Override
            public Integer call() {
                throw new OutOfMemoryError("Java heap space");
            }
        }
        final java.io.PrintStream before = System.err;
        final java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
        final int code;
        try {
            code = Main.run(new CommandLine(new Fails()));
        } finally {
            System.setErr(before);
        }
        assertEquals(Main.FAILURE, code);
        assertEquals("sharray: out of memory (Java heap space); try a smaller size or fewer workers",
            err.toString(StandardCharsets.UTF_8).strip());
    }
}

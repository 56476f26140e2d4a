package dev.sharray.cli;

import dev.sharray.cli.demo.DemoCommand;
import dev.sharray.cli.ec.EcCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The top-level {@code sharray} command; it only dispatches to subcommands. */
@Command(name = "sharray", mixinStandardHelpOptions = true, version = "sharray 0.1.0",
    description = "Shared-memory parallel arrays for the JVM: demo, erasure-code files, list and clean shared arrays.",
    subcommands = {DemoCommand.class, EcCommand.class, LsCommand.class, CleanCommand.class},
    footer = {"", "Exit codes: 0 ok, 1 failure, 2 usage error."})
public final class SharrayCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    GlobalOptions global;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command (demo, ec, ls, clean)");
    }
}

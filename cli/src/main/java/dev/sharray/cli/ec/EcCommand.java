package dev.sharray.cli.ec;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code sharray ec}: erasure-code files into shard sets and back. */
@Command(name = "ec", mixinStandardHelpOptions = true,
    description = "Erasure-code a file into k data + m parity shard files, and decode, verify or repair a shard set.",
    subcommands = {EcEncodeCommand.class, EcDecodeCommand.class, EcVerifyCommand.class, EcRepairCommand.class})
public final class EcCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing subcommand (encode, decode, verify, repair)");
    }
}

package dev.sharray.cli;

import picocli.CommandLine;

/** Prints a usage error as one line plus a hint at {@code --help}, and returns exit code 2. */
final class UsageErrorHandler implements CommandLine.IParameterExceptionHandler {
    @Override
    public int handleParseException(CommandLine.ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        if (Ui.verbose()) {
            ex.printStackTrace(System.err);
        }
        System.err.println("sharray: " + ex.getMessage());
        // a mistyped command or option: picocli's nearest names ("Did you mean: ls?")
        CommandLine.UnmatchedArgumentException.printSuggestions(ex, System.err);
        System.err.println("Try '" + cl.getCommandSpec().qualifiedName() + " --help' for more information.");
        return Main.USAGE;
    }
}

package dev.sharray.cli;

import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** Options every command accepts: {@code --verbose} and {@code --quiet}. */
public final class GlobalOptions {
    /** @param v print stack traces on failure */
    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
        description = "Print stack traces on failure.")
    void setVerbose(boolean v) {
        Ui.verbose(v);
    }

    /** @param q no progress and no informational messages */
    @Option(names = {"-q", "--quiet"}, scope = ScopeType.INHERIT,
        description = "No progress and no informational messages; results and errors only.")
    void setQuiet(boolean q) {
        Ui.quiet(q);
    }
}

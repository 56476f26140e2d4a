package dev.sharray.cli;

import java.io.Console;
import java.io.PrintStream;
import java.lang.reflect.Method;

/** Process-wide output settings set by the global options: verbosity, quietness, and where progress goes. */
public final class Ui {
    private static volatile boolean verbose;
    private static volatile boolean quiet;

    private Ui() {
    }

    /** @return whether failures print stack traces */
    public static boolean verbose() {
        return verbose;
    }

    /** @param v whether failures print stack traces */
    static void verbose(boolean v) {
        verbose = v;
    }

    /** @return whether informational output and progress are suppressed */
    public static boolean quiet() {
        return quiet;
    }

    /** @param q whether informational output and progress are suppressed */
    static void quiet(boolean q) {
        quiet = q;
    }

    /** @return stdout, for results */
    public static PrintStream out() {
        return System.out;
    }

    /**
     * Prints an informational line on stderr unless {@code --quiet}.
     *
     * @param line the message
     */
    public static void info(String line) {
        if (!quiet) {
            System.err.println("sharray: " + line);
        }
    }

    /** @return whether stderr is an interactive terminal (progress bars there, plain lines otherwise) */
    public static boolean isTerminal() {
        if (System.getenv("SHARRAY_PROGRESS_PLAIN") != null) {
            return false;
        }
        Console c = System.console();
        if (c == null) {
            return false;
        }
        try {
            // JDK 22+ returns a console even when redirected; isTerminal() tells the truth there.
            Method m = Console.class.getMethod("isTerminal");
            return (Boolean) m.invoke(c);
        } catch (ReflectiveOperationException e) {
            return true;
        }
    }
}

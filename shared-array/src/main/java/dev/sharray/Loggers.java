package dev.sharray;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.NOPLoggerFactory;

/**
 * sharray's loggers: SLF4J's, or, where the application has no SLF4J provider (SLF4J then drops every line, and a
 * fallback that costs the codec its native speed went unsaid), one that prints warnings and errors to standard error.
 * An application that chose slf4j-nop, or runs SLF4J 1.7 without a binding, gets SLF4J's silence. Ask for a logger
 * only when there is something to say: SLF4J's start-up costs ~10-15 ms.
 *
 * <p>For sharray's modules; not a general-purpose API.
 */
public final class Loggers {
    /** slf4j-nop's provider: an application that has it asked for silence. */
    private static final String CHOSEN_SILENCE = "org.slf4j.nop.NOPServiceProvider";

    private Loggers() {
    }

    /**
     * @param name the logger's name
     * @return SLF4J's logger of that name, or one printing warnings and errors to standard error when no SLF4J
     *     provider is bound
     */
    public static Logger get(String name) {
        final Logger logger = LoggerFactory.getLogger(name);
        if (!(LoggerFactory.getILoggerFactory() instanceof NOPLoggerFactory) || isOnClasspath(CHOSEN_SILENCE)) {
            return logger;
        }
        try {
            return new StandardErrorLogger(name);
        } catch (LinkageError slf4j17) { // its base class is SLF4J 2's: under 1.7, SLF4J's own (silent) logger
            return logger;
        }
    }

    private static boolean isOnClasspath(String className) {
        try {
            Class.forName(className, false, Loggers.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}

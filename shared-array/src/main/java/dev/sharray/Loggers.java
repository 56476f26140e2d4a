package dev.sharray;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.NOPLoggerFactory;

/**
 * sharray's loggers: SLF4J's, or, where the application has no SLF4J provider (SLF4J then drops every line, and a
 * fallback that costs the codec its native speed went unsaid), one that prints warnings and errors to standard error.
 * Ask for a logger only when there is something to say: SLF4J's start-up costs ~10-15 ms.
 *
 * <p>For sharray's modules; not a general-purpose API.
 */
public final class Loggers {
    private Loggers() {
    }

    /**
     * @param name the logger's name
     * @return SLF4J's logger of that name, or one printing warnings and errors to standard error when no SLF4J
     *     provider is bound
     */
    public static Logger get(String name) {
        final Logger logger = LoggerFactory.getLogger(name);
        return LoggerFactory.getILoggerFactory() instanceof NOPLoggerFactory ? new StandardErrorLogger(name) : logger;
    }
}

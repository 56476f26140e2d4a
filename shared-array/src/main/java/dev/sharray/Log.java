package dev.sharray;

import org.slf4j.Logger;

/**
 * The library's logger, created on first use: SLF4J's start-up costs ~15 ms, which a worker JVM that
 * never logs should not pay.
 */
final class Log {
    private Log() {
    }

    /** @return the logger of the {@code dev.sharray} package */
    static Logger get() {
        return Holder.LOGGER;
    }

    private static final class Holder {
        static final Logger LOGGER = Loggers.get("dev.sharray");
    }
}

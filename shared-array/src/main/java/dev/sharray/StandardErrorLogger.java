package dev.sharray;

import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** Prints warnings and errors to standard error, as {@code WARN <name> - <message>}; drops the rest (see {@link Loggers}). */
final class StandardErrorLogger extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;

    StandardErrorLogger(String name) {
        this.name = name;
    }

    @Override
    public boolean isTraceEnabled() {
        return false;
    }

    @Override
    public boolean isDebugEnabled() {
        return false;
    }

    @Override
    public boolean isInfoEnabled() {
        return false;
    }

    @Override
    public boolean isWarnEnabled() {
        return true;
    }

    @Override
    public boolean isErrorEnabled() {
        return true;
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String messagePattern, Object[] arguments,
                                               Throwable throwable) {
        final String line = level + " " + name + " - " + MessageFormatter.basicArrayFormat(messagePattern, arguments);
        synchronized (System.err) { // the line and its trace together, not interleaved with another thread's
            System.err.println(line);
            if (throwable != null) {
                throwable.printStackTrace(System.err);
            }
        }
    }
}

package dev.sharray.cli;

/**
 * Progress of one long step, in bytes. A bar on a terminal, periodic plain lines otherwise, nothing with
 * {@code --quiet}. Thread-safe.
 */
public interface Progress extends AutoCloseable {
    /** @param bytes bytes just completed */
    void advance(long bytes);

    /** Ends the display (the bar is completed, or a final line printed). */
    @Override
    void close();

    /**
     * @param task  what is being done, e.g. {@code encode}
     * @param total total bytes
     * @return the right kind of progress for this process's stderr and options
     */
    static Progress start(String task, long total) {
        if (Ui.quiet() || total <= 0) {
            return NoProgress.INSTANCE;
        }
        return Ui.isTerminal() ? new BarProgress(task, total) : new LineProgress(task, total);
    }
}

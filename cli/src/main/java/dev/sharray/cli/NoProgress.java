package dev.sharray.cli;

/** Progress that shows nothing ({@code --quiet}). */
final class NoProgress implements Progress {
    static final NoProgress INSTANCE = new NoProgress();

    @Override
    public void advance(long bytes) {
    }

    @Override
    public void close() {
    }
}

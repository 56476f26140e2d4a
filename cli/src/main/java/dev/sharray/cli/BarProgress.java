package dev.sharray.cli;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/** A terminal progress bar (me.tongfei:progressbar) counting MiB. */
final class BarProgress implements Progress {
    private static final long MIB = 1 << 20;
    private final ProgressBar bar;
    private long bytes;

    BarProgress(String task, long total) {
        this.bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(Math.max(1, (total + MIB - 1) / MIB))
            .setUnit(" MiB", 1).setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(200)
            .showSpeed().continuousUpdate().build();
    }

    @Override
    public synchronized void advance(long n) {
        bytes += n;
        bar.stepTo(bytes / MIB);
    }

    @Override
    public synchronized void close() {
        bar.stepTo(bar.getMax());
        bar.close();
    }
}

package dev.sharray.cli.ec;

import dev.sharray.cli.Parallel;
import dev.sharray.cli.Progress;
import dev.sharray.codec.ErasureCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Walks a shard set window by window: intact shards are mapped read-only, damaged ones are rebuilt into
 * scratch windows in parallel, and a {@link Sink} consumes each complete window.
 */
final class WindowReconstructor {
    /** Receives each window: every shard's window, positioned at 0 with limit {@code w}. */
    interface Sink {
        void accept(long c0, int w, ByteBuffer[] shards) throws IOException;
    }

    private WindowReconstructor() {
    }

    /**
     * @param set      a recoverable set
     * @param dataOnly rebuild only data shards (decode) or all damaged shards (repair)
     * @param parallel runs the reconstruction
     * @param task     progress label
     * @param sink     consumes each window
     */
    static void run(ShardSet set, boolean dataOnly, Parallel parallel, String task, Sink sink) throws IOException {
        ShardHeader h = set.header();
        int k = h.k();
        int n = k + h.m();
        long shardLen = h.shardLength();
        boolean[] present = set.present();
        boolean needCompute = false;
        int missing = 0;
        for (int i = 0; i < n; i++) {
            if (!present[i]) {
                missing++;
                needCompute |= !dataOnly || i < k;
            }
        }
        int window = (int) Math.min(Math.max(64 << 10, ((64L << 20) / Math.max(1, missing)) & ~63L), Windows.WINDOW);
        window = (int) Math.min(window, Math.max(1, shardLen));
        ErasureCodec codec = ErasureCodec.builder(k, h.m()).matrix(h.matrix()).build();
        FileChannel[] in = new FileChannel[n];
        ByteBuffer[] scratch = new ByteBuffer[n];
        try {
            for (int i = 0; i < n; i++) {
                if (present[i]) {
                    in[i] = FileChannel.open(set.entries().get(i).path(), StandardOpenOption.READ);
                } else {
                    scratch[i] = ByteBuffer.allocateDirect(window);
                }
            }
            try (Progress progress = Progress.start(task, k * shardLen)) {
                for (long c0 = 0; c0 < shardLen; c0 += window) {
                    int w = (int) Math.min(window, shardLen - c0);
                    ByteBuffer[] shards = new ByteBuffer[n];
                    List<ByteBuffer> maps = new ArrayList<>();
                    try {
                        for (int i = 0; i < n; i++) {
                            if (present[i]) {
                                ByteBuffer b = Mapped.map(in[i], ShardHeader.SIZE + c0, w);
                                maps.add(b);
                                shards[i] = b;
                            } else {
                                shards[i] = scratch[i].clear().limit(w);
                            }
                        }
                        if (needCompute) {
                            parallel.map(part -> {
                                ByteBuffer[] s = FileEncoder.slices(shards, part);
                                if (dataOnly) {
                                    codec.reconstructData(s, present);
                                } else {
                                    codec.reconstruct(s, present);
                                }
                                return null;
                            }, Windows.split(0, w, parallel.workers()));
                        }
                        sink.accept(c0, w, shards);
                    } finally {
                        maps.forEach(Mapped::unmap);
                    }
                    progress.advance((long) k * w);
                }
            }
        } finally {
            for (FileChannel ch : in) {
                if (ch != null) {
                    ch.close();
                }
            }
        }
    }
}

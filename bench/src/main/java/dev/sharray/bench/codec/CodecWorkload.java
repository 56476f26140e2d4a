package dev.sharray.bench.codec;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.bench.peers.Params;
import dev.sharray.bench.peers.Workload;
import dev.sharray.codec.Backend;
import dev.sharray.codec.ErasureCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Peer-harness side for RS(k,m) coding: one SharedArray stripe of shape (k+m, shard) per thread, coded in
 * place; {@link #run()} returns the time of one operation per thread (several repetitions averaged).
 */
abstract class CodecWorkload implements Workload {
    private static final int REPS = 16;

    private final Backend forcedBackend;
    private final boolean reconstruct;
    private ErasureCodec codec;
    private final List<SharedArray> stripes = new ArrayList<>();
    private ExecutorService threads;
    private boolean[] present;

    CodecWorkload(Backend forcedBackend, boolean reconstruct) {
        this.forcedBackend = forcedBackend;
        this.reconstruct = reconstruct;
    }

    @Override
    public void setUp(Params params) {
        int k = (int) params.getLong("k", 10);
        int m = (int) params.getLong("m", 4);
        int shard = (int) params.getLong("shard", 1 << 20);
        int n = (int) params.getLong("threads", 1);
        Backend backend = forcedBackend != null ? forcedBackend : Backend.valueOf(params.get("backend", "NATIVE"));
        codec = ErasureCodec.builder(k, m).backend(backend).build();
        present = new boolean[k + m];
        java.util.Arrays.fill(present, true);
        for (int i = 0; i < params.getLong("lost", 0); i++) {
            present[i] = false; // the worst case: lost data shards
        }
        Random rnd = new Random(1);
        byte[] data = new byte[(k + m) * shard];
        for (int t = 0; t < n; t++) {
            rnd.nextBytes(data);
            SharedArray s = SharedArray.create(DType.UINT8, k + m, shard);
            s.copyFrom(data);
            codec.encode(s);
            stripes.add(s);
        }
        threads = Executors.newFixedThreadPool(n);
    }

    @Override
    public double run() throws Exception {
        long start = System.nanoTime();
        List<Future<?>> done = new ArrayList<>();
        for (SharedArray s : stripes) {
            done.add(threads.submit(() -> {
                for (int r = 0; r < REPS; r++) {
                    if (reconstruct) {
                        codec.reconstruct(s, present);
                    } else {
                        codec.encode(s);
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        return (System.nanoTime() - start) / 1e9 / REPS;
    }

    @Override
    public void close() {
        if (threads != null) {
            threads.shutdownNow();
        }
        stripes.forEach(SharedArray::release);
    }
}

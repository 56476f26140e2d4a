package dev.sharray.codec;

import dev.sharray.Descriptor;
import dev.sharray.SharedArray;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One-call entry points for a worker JVM that receives a stripe as a {@link Descriptor}: open the
 * shared memory, code it in place, release this process's reference. Codecs are cached per
 * (k, m, matrix), so repeated tasks pay for table building once; their decode plans share one budget (64 MiB of
 * tables), so a process that meets many geometries does not keep a full plan cache for each.
 */
public final class SharedStripes {
    private static final ConcurrentHashMap<String, ErasureCodec> CODECS = new ConcurrentHashMap<>();

    private SharedStripes() {
    }

    /**
     * Encodes the parity rows of the stripe the descriptor names.
     *
     * @param stripe       descriptor of a UINT8 (k + m, shardLength) contiguous array
     * @param dataShards   k
     * @param parityShards m
     * @param matrix       the generator matrix
     */
    public static void encode(Descriptor stripe, int dataShards, int parityShards, Matrix matrix) {
        try (SharedArray a = SharedArray.open(stripe)) {
            codec(dataShards, parityShards, matrix).encode(a);
        }
    }

    /**
     * Rebuilds the missing rows of the stripe the descriptor names.
     *
     * @param stripe       descriptor of a UINT8 (k + m, shardLength) contiguous array
     * @param dataShards   k
     * @param parityShards m
     * @param matrix       the generator matrix
     * @param present      which rows are intact
     */
    public static void reconstruct(Descriptor stripe, int dataShards, int parityShards, Matrix matrix,
                                   boolean[] present) {
        try (SharedArray a = SharedArray.open(stripe)) {
            codec(dataShards, parityShards, matrix).reconstruct(a, present);
        }
    }

    /**
     * The shared codec for this shape on the {@link Backend#AUTO} backend. It belongs to the process:
     * {@link ErasureCodec#close()} leaves it open.
     *
     * @param dataShards   k
     * @param parityShards m
     * @param matrix       the generator matrix
     * @return a cached codec
     */
    public static ErasureCodec codec(int dataShards, int parityShards, Matrix matrix) {
        return CODECS.computeIfAbsent(key(dataShards, parityShards, matrix),
            key -> {
                final ErasureCodec codec = ErasureCodec.builder(dataShards, parityShards).matrix(matrix).build();
                codec.shareByProcess(); // every task of the process uses it: one task's close() must not end it
                return codec;
            });
    }

    private static String key(int dataShards, int parityShards, Matrix matrix) {
        return dataShards + "/" + parityShards + "/" + matrix;
    }

    /** Test hook: forgets and closes the shared codec of this geometry, if there is one. */
    static void forget(int dataShards, int parityShards, Matrix matrix) {
        final ErasureCodec codec = CODECS.remove(key(dataShards, parityShards, matrix));
        if (codec != null) {
            codec.closeShared();
        }
    }
}

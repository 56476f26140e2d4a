package dev.sharray;

import java.nio.file.Path;
import java.util.Map;

/**
 * A live shared array found on disk, as {@link SharedArrays#list()} reports it.
 *
 * @param path the {@code .npy} file
 * @param dtype element type
 * @param shape dimensions
 * @param bytes size of the file
 * @param holders references per holding pid
 * @param ownerPid pid of the process whose folder holds the file
 * @param ownerAlive whether that process is still running
 */
public record ArrayInfo(Path path, DType dtype, long[] shape, long bytes, Map<Long, Long> holders, long ownerPid,
                        boolean ownerAlive) {
    /** @return total references over all holders */
    public long totalReferences() {
        return holders.values().stream().mapToLong(Long::longValue).sum();
    }
}

package dev.sharray;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * A live shared array found on disk, as {@link SharedArrays#list()} reports it. A value: two reports of the same
 * array in the same state are equal, and nothing in one can be changed.
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
    /** Copies {@code shape} and {@code holders}: the record keeps its own. */
    public ArrayInfo {
        shape = shape.clone();
        holders = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(holders)); // in its order
    }

    /** @return a copy of the dimensions */
    @Override
    public long[] shape() {
        return shape.clone();
    }

    /** @return total references over all holders */
    public long totalReferences() {
        return holders.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Compares the shape by its dimensions, as every other component by value (a record compares arrays by identity). */
    @Override
    public boolean equals(Object o) {
        return o instanceof ArrayInfo other && path.equals(other.path) && dtype == other.dtype
            && Arrays.equals(shape, other.shape) && bytes == other.bytes && holders.equals(other.holders)
            && ownerPid == other.ownerPid && ownerAlive == other.ownerAlive;
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, dtype, Arrays.hashCode(shape), bytes, holders, ownerPid, ownerAlive);
    }

    /** The shape as a tuple, {@code (4, 5)}, not an array's identity. */
    @Override
    public String toString() {
        return "ArrayInfo[path=" + path + ", dtype=" + dtype + ", shape=" + Shapes.tuple(shape) + ", bytes=" + bytes
            + ", holders=" + holders + ", ownerPid=" + ownerPid + ", ownerAlive=" + ownerAlive + "]";
    }
}

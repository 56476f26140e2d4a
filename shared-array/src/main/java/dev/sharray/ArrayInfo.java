package dev.sharray;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A live shared array found on disk, as {@link SharedArrays#list()} reports it. A value: two reports of the same
 * array in the same state are equal, and nothing in one can be changed.
 *
 * @param path the {@code .npy} file
 * @param dtype element type
 * @param shape dimensions
 * @param bytes size of the file
 * @param holders references per holding pid
 * @param deadHolders the pids among {@code holders} that are no longer running (killed holders: their references
 *     count until a live holder's release or a reaper pass takes them back)
 * @param ownerPid pid of the process whose folder holds the file
 * @param ownerAlive whether that process is still running
 */
public record ArrayInfo(Path path, DType dtype, long[] shape, long bytes, Map<Long, Long> holders,
                        Set<Long> deadHolders, long ownerPid, boolean ownerAlive) {
    /** Copies {@code shape}, {@code holders} and {@code deadHolders}: the record keeps its own. */
    public ArrayInfo {
        shape = shape.clone();
        holders = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(holders)); // in its order
        deadHolders = java.util.Collections.unmodifiableSet(new java.util.TreeSet<>(deadHolders));
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
            && deadHolders.equals(other.deadHolders) && ownerPid == other.ownerPid && ownerAlive == other.ownerAlive;
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, dtype, Arrays.hashCode(shape), bytes, holders, deadHolders, ownerPid, ownerAlive);
    }

    /** The shape as a tuple, {@code (4, 5)}, not an array's identity. */
    @Override
    public String toString() {
        return "ArrayInfo[path=" + path + ", dtype=" + dtype + ", shape=" + Shapes.tuple(shape) + ", bytes=" + bytes
            + ", holders=" + holders + ", deadHolders=" + deadHolders + ", ownerPid=" + ownerPid + ", ownerAlive=" + ownerAlive + "]";
    }
}

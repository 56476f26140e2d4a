package dev.sharray;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * A child JVM for {@link MemoryLimitTest}, run in a memory cgroup smaller than the tmpfs it is given: creates an array
 * larger than the cgroup's limit there, then a small one. Prints {@code "big refused <message>"} (or
 * {@code "big created"}), {@code "files N"} (the files then in its folder) and {@code "small created"}; exits 0.
 * A process the OOM killer ends prints none of them.
 *
 * <p>Arguments: the root folder, the big array's bytes, the small array's bytes.
 */
public final class MemoryLimitChild {
    private MemoryLimitChild() {
    }

    public static void main(String[] args) throws Exception {
        final Path root = Path.of(args[0]);
        try (SharedArray big = SharedArray.builder(DType.INT8, Long.parseLong(args[1])).folder(root).create()) {
            System.out.println("big created");
        } catch (InsufficientSpaceException e) {
            System.out.println("big refused " + e.getMessage());
        }
        try (Stream<Path> files = Files.list(SharedArrays.processFolder(root))) {
            System.out.println("files " + files.count());
        }
        try (SharedArray small = SharedArray.builder(DType.INT8, Long.parseLong(args[2])).folder(root).create()) {
            small.setByte((byte) 7, small.size() - 1);
            System.out.println(small.getByte(small.size() - 1) == 7 ? "small created" : "small wrong");
        }
    }
}

package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's {@code .npy} opened with {@code openNpy} crosses to a worker as a descriptor of that file, which the
 * worker opens only in a folder it allows. The workers allow what their parent allowed when the pool was built:
 * before, {@code SharedArrays.allowFolder} in the parent did not reach them, and every task of a {@code mapChunks}
 * over the file failed ("... is not in a sharray folder ... or an allowed folder").
 */
class AllowedFoldersTest {
    @Test
    void workersOpenAUsersNpyInAFolderTheParentAllowedAndWriteItInPlace(@TempDir Path dir) throws Exception {
        final Path file = dir.resolve("mine.npy");
        final double[] values = new double[8 * 4];
        for (int i = 0; i < values.length; i++) {
            values[i] = i;
        }
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 8, 4)) {
            a.copyFrom(values);
            Files.copy(a.path(), file); // a valid .npy outside the sharray folders
        }
        SharedArrays.allowFolder(dir);
        try (ProcessPool pool = ProcessPool.builder().workers(2).build();
             SharedArray mine = SharedArray.openNpy(file)) {
            final List<Double> sums = pool.mapChunks(mine, 2, chunk -> {
                final double s = chunk.sum();
                chunk.copyFrom(chunk.multiply(2.0).toDoubleArray());
                return s;
            });
            assertEquals(List.of(28.0, 92.0, 156.0, 220.0), sums);
            assertEquals(2 * 31.0, mine.getDouble(7, 3), "the workers wrote the user's file in place");
        }
    }

    @Test
    void aUsersOwnAllowedFoldersOptionIsMergedNotReplaced() {
        final String sep = java.io.File.pathSeparator;
        assertEquals(List.of("-Xss1m", "-Dsharray.allowedFolders=/a" + sep + "/b" + sep + "/c"),
            WorkerLauncher.withAllowedFolders(List.of("-Dsharray.allowedFolders=/a" + sep + "/b", "-Xss1m"),
                Set.of(Path.of("/c"))));
        assertEquals(List.of("-Xss1m"), WorkerLauncher.withAllowedFolders(List.of("-Xss1m"), Set.of()));
        assertEquals(List.of("-Dsharray.allowedFolders=/d"),
            WorkerLauncher.withAllowedFolders(List.of(), Set.of(Path.of("/d"), Path.of("/x" + sep + "y"))),
            "a folder the property cannot name is left out");
    }
}

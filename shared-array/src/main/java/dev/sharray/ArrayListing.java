package dev.sharray;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@link SharedArrays#listAll()} found in this user's sharray folders: the live arrays it could read, and the
 * array files it could not list, each with the reason. An array being created or deleted right now is in neither.
 *
 * @param arrays the live arrays, as {@link SharedArrays#list()} returns them
 * @param unlisted the array files that could not be listed: unreadable, damaged, left by a process killed while
 *     creating them, of another sharray build or of a process in another pid namespace; and folders that could not
 *     be read, whose arrays are then in neither list
 * @param roots the temp roots whose sharray folders were looked in: this JVM's ({@code -Dsharray.tempFolder} or
 *     {@code SHARRAY_TEMP_FOLDER}), {@code /dev/shm} and {@code java.io.tmpdir}, those that exist
 */
public record ArrayListing(List<ArrayInfo> arrays, List<Unlisted> unlisted, List<Path> roots) {
    /** Keeps its own copies. */
    public ArrayListing {
        arrays = List.copyOf(arrays);
        unlisted = List.copyOf(unlisted);
        roots = List.copyOf(roots);
    }

    /**
     * An array file that could not be listed.
     *
     * @param path the array's {@code .npy} file (it may be the one missing), or a folder that could not be read
     * @param reason why, in words: which file, what is wrong with it, and what removes it where that is known
     */
    public record Unlisted(Path path, String reason) {
    }
}

package dev.sharray;

import java.nio.file.Path;
import java.util.List;

/**
 * What a reaper pass freed.
 *
 * @param foldersRemoved owner folders of dead processes that were deleted
 * @param arraysDeleted array files deleted because no live process held them
 * @param referencesReclaimed references of dead processes dropped from refcount files
 * @param bytesFreed bytes of the deleted files
 */
public record ReapReport(List<Path> foldersRemoved, List<Path> arraysDeleted, long referencesReclaimed, long bytesFreed) {
    /** @return true when nothing was found to clean */
    public boolean isEmpty() {
        return foldersRemoved.isEmpty() && arraysDeleted.isEmpty() && referencesReclaimed == 0;
    }
}

package dev.sharray.cli.ec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Objects;

/**
 * What a file looked like at one moment: its size, modification and status-change times and identity. The encode
 * reads its input several times over (a kernel copy for the data shards, the workers' own mappings for the parity
 * and the checksums), so an input written to meanwhile would give a set of no one version of the file; comparing
 * the state at the start with the state before the commit tells it.
 *
 * @param size  bytes
 * @param mtime last modification
 * @param ctime last status change ({@code unix:ctime}; also moved by a write whose mtime was set back, and by chmod or a new link), or null
 *              where the file system has no unix view
 * @param key   the file's identity (device and inode on Linux), or null: another key means the path was replaced
 */
record InputState(long size, FileTime mtime, Object ctime, Object key) {
    /**
     * @param file the file (links followed, as the encode opens it)
     * @return its state now
     */
    static InputState of(Path file) throws IOException {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        Object ctime;
        try {
            ctime = Files.getAttribute(file, "unix:ctime");
        } catch (UnsupportedOperationException | IllegalArgumentException noUnixView) {
            ctime = null;
        }
        return new InputState(a.size(), a.lastModifiedTime(), ctime, a.fileKey());
    }

    /**
     * @param later the same file's state at a later moment
     * @return what changed in between, for a message ("it grew from 10 to 20 bytes"), or null when nothing did
     */
    String changeTo(InputState later) {
        if (!Objects.equals(key, later.key)) {
            return "it was replaced by another file";
        }
        if (size != later.size) {
            return (later.size > size ? "it grew" : "it shrank") + " from " + size + " to " + later.size + " bytes";
        }
        if (!mtime.equals(later.mtime) || !Objects.equals(ctime, later.ctime)) {
            return "it was modified";
        }
        return null;
    }
}

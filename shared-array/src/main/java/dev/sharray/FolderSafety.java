package dev.sharray;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;

/**
 * Whether another user could change what a path names. A process that checks a file and later opens, maps or
 * deletes it by path trusts every folder on that path: another user who may rename entries in one of them (one
 * writable by others without the sticky bit, or one of theirs) can swap a folder for their own, or for a link to
 * the victim's files, between the check and the use.
 */
final class FolderSafety {
    private static final int WRITABLE_BY_OTHERS = 0022;
    private static final int STICKY = 01000;
    /**
     * The owner the kernel shows for a file whose uid is not mapped in this user namespace, or -1 outside one (on a
     * host that uid is an account of its own, {@code nobody}, not a stand-in for root's files).
     */
    private static final int OVERFLOW_UID = inUserNamespace()
        ? (int) KernelFiles.readLong("/proc/sys/kernel/overflowuid", 65534) : -1;

    private FolderSafety() {
    }

    /**
     * Requires that no other user can replace an entry of {@code folder} or of any folder above it: each belongs to
     * this user or root (or, in a user namespace, is the kernel's overflow uid, the owner shown for unmapped files) and
     * is writable by others only when sticky, as {@code /tmp} and {@code /dev/shm} are. Its entries that are this
     * user's are then this user's alone to rename or remove.
     *
     * @param folder an existing folder, as a real path (no symbolic links)
     * @param use what is refused, for the message: "to keep shared arrays under /dev/shm"
     * @throws IOException naming the folder another user could change, and how
     */
    static void requireOthersCannotReplaceEntries(Path folder, String use) throws IOException {
        for (Path p = folder; p != null; p = p.getParent()) {
            final Map<String, Object> a = Files.readAttributes(p, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
            final int owner = (Integer) a.get("uid");
            final int mode = (Integer) a.get("mode");
            if (!isOwnOrRoot(owner) && owner != OVERFLOW_UID) {
                throw new IOException(p + " belongs to uid " + owner + ", another user, who could replace what it holds:"
                    + " refusing " + use);
            }
            if (writableByOthers(mode) && (mode & STICKY) == 0) {
                throw new IOException(p + " is writable by other users without the sticky bit (mode "
                    + Integer.toOctalString(mode & 07777) + "), so they could replace what it holds: refusing " + use
                    + " (make it sticky, chmod +t, or use a folder only you can write)");
            }
        }
    }

    /**
     * Requires that no other user can replace {@code file}: its folder passes {@link #requireOthersCannotReplaceEntries},
     * and where that folder is writable by others (sticky), the file is this user's or root's.
     *
     * @param file an existing file, as a real path
     * @param use what is refused, for the message
     * @throws IOException naming the folder or file another user could change
     */
    static void requireOthersCannotReplace(Path file, String use) throws IOException {
        final Path folder = file.getParent();
        requireOthersCannotReplaceEntries(folder, use);
        final int folderMode = (Integer) Files.getAttribute(folder, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        if (writableByOthers(folderMode)) {
            final Map<String, Object> a = Files.readAttributes(file, "unix:uid,nlink", LinkOption.NOFOLLOW_LINKS);
            final int owner = (Integer) a.get("uid");
            if (!isOwnOrRoot(owner)) {
                throw new IOException(file + " belongs to uid " + owner + ", another user, in a folder others can write"
                    + " (mode " + Integer.toOctalString(folderMode & 07777) + "), so they could replace it: refusing "
                    + use);
            }
            final int links = (Integer) a.get("nlink");
            if (links != 1) {
                // another user may link a file of ours into a folder they can write (where the kernel lets them:
                // fs.protected_hardlinks=0), and it is ours by its owner: one of its other names may be anywhere
                throw new IOException(file + " has " + links + " names (hard links), in a folder others can write (mode "
                    + Integer.toOctalString(folderMode & 07777) + "): refusing " + use);
            }
        }
    }

    /**
     * Requires {@code folder} to belong to this user (or root) and be writable by no one else, and the folders above
     * it to pass {@link #requireOthersCannotReplaceEntries}: then nobody else can change its entries either.
     *
     * @param folder an existing folder, as a real path
     * @param use what the folder is for, for the message
     * @throws IOException naming the folder another user could change
     */
    static void requirePrivate(Path folder, String use) throws IOException {
        final Map<String, Object> a = Files.readAttributes(folder, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
        final int owner = (Integer) a.get("uid");
        final int mode = (Integer) a.get("mode");
        if (!isOwnOrRoot(owner)) {
            throw new IOException(folder + " belongs to uid " + owner + ", another user: refusing " + use);
        }
        if (writableByOthers(mode)) {
            throw new IOException(folder + " is writable by other users (mode " + Integer.toOctalString(mode & 07777)
                + "): refusing " + use + " (chmod go-w it, or use a folder only you can write)");
        }
        final Path parent = folder.getParent();
        if (parent != null) {
            requireOthersCannotReplaceEntries(parent, use);
        }
    }

    /**
     * @return whether users other than this one may write to {@code p}: its group or others may. A group of the user's
     *     own (umask 002's user private group) is not told apart: another group may share its gid, and with a POSIX
     *     ACL the group bits are the ACL's mask, so a folder shared with named users looks the same (the third
     *     security review ran code in the victim's worker through each)
     */
    private static boolean writableByOthers(int mode) {
        return (mode & WRITABLE_BY_OTHERS) != 0;
    }

    /** @return whether this process runs in a user namespace other than the initial one (a rootless container's) */
    static boolean inUserNamespace() {
        try {
            final String[] map = Files.readString(Path.of("/proc/self/uid_map")).trim().split("\\s+");
            return !(map.length == 3 && map[0].equals("0") && map[1].equals("0") && map[2].equals("4294967295"));
        } catch (IOException | RuntimeException e) {
            return false; // no /proc: judged as on a host
        }
    }

    /** @return whether {@code owner} is this process's user or root */
    static boolean isOwnOrRoot(int owner) {
        if (owner == 0) {
            return true;
        }
        final Integer mine = TempFolders.effectiveUid(owner);
        return mine == null || owner == mine;
    }
}

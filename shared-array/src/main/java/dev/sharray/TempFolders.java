package dev.sharray;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Where arrays live: {@code <root>/sharray-<user>/<host>-<pid>-t<start>-<random>/}, one folder per
 * owning process (mode 0700, files 0600). Root: explicit option, else {@code SHARRAY_TEMP_FOLDER} (or the
 * system property {@code sharray.tempFolder}), else {@code /dev/shm} when it has room for this array,
 * else {@code java.io.tmpdir}.
 */
final class TempFolders {
    static final Set<PosixFilePermission> DIR_MODE = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");
    static final Path DEV_SHM = Path.of("/dev/shm");
    /** Length of the random suffix of an owner folder's name (8 hex digits). */
    private static final int RANDOM_HEX = 8;
    /** Checked on every open of a descriptor: computed once (the user name does not change). */
    private static final String USER_FOLDER_NAME = userFolderName(System.getProperty("user.name"));
    /** Keep this much free on /dev/shm beyond the array before choosing it. */
    private static final long SHM_HEADROOM = 64L << 20;
    /** The type {@link java.nio.file.FileStore#type()} gives a tmpfs. */
    static final String TMPFS = "tmpfs";
    /**
     * Arrays from this size on are checked against the memory a tmpfs can still take ({@link #memoryRoom}): the check
     * reads a few kernel files, and smaller ones cannot by themselves exhaust the memory.
     */
    static final long MEMORY_CHECK_BYTES = 1L << 20;

    /** Created on first use: a worker that only opens arrays never needs it (start-up time). */
    private static final class Lazy {
        static final String HOST = hostName();
    }
    private static final Map<Path, Path> OWNER_FOLDERS = new ConcurrentHashMap<>();
    /**
     * The identity (device and inode) of each owner folder this process made, and of its sharray-&lt;user&gt; folder:
     * checked before each use, so a folder put in their place (by a user who could rename them: a root that fails
     * {@link FolderSafety}'s rule in some way it does not see) is refused rather than filled with this process's
     * arrays and its pool's worker files.
     */
    private static final Map<Path, List<Object>> FOLDER_IDENTITIES = new ConcurrentHashMap<>();

    private TempFolders() {
    }

    static String userFolderName() {
        return USER_FOLDER_NAME;
    }

    /**
     * {@code sharray-<user name>}; for a uid without a name ({@code user.name} is {@code ?} when the uid has no
     * passwd entry, as in containers run with an arbitrary uid), {@code sharray-uid<uid>}: one name for every
     * such uid would make the first one's folder refuse all the others, so none of them could create an array.
     */
    static String userFolderName(String userName) {
        if (userName == null || userName.isBlank() || userName.equals("?")) {
            final Long uid = effectiveUidFromProc();
            return uid == null ? "sharray-unknown" : "sharray-uid" + uid;
        }
        return "sharray-" + userName.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    /** @return the effective uid from /proc/self/status (no native call: this runs in class initialisation), or null */
    private static Long effectiveUidFromProc() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return Long.parseLong(line.substring(4).strip().split("\\s+")[1]); // real, effective, saved, fs
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc
        }
        return null;
    }

    /**
     * The kernel's host name where Linux exposes it: {@code InetAddress.getLocalHost()} would also resolve
     * the name, which can wait on DNS.
     */
    private static String hostName() {
        String h = System.getenv("HOSTNAME");
        if (h == null || h.isBlank()) {
            h = KernelFiles.read("/proc/sys/kernel/hostname");
            h = h == null ? null : h.strip();
        }
        if (h == null || h.isBlank()) {
            try {
                h = InetAddress.getLocalHost().getHostName();
            } catch (IOException e) {
                h = "localhost";
            }
        }
        return h.replaceAll("[^A-Za-z0-9.]", "_");
    }

    /**
     * A random suffix that keeps names of this process apart from stale ones. Not a secret: the folders it
     * names sit in the user's own 0700 folder ({@link #requireOwnDirectory}), so a fast generator does, and
     * a process start does not pay for setting up SecureRandom (~20 ms).
     */
    static String randomHex() {
        return String.format("%08x", ThreadLocalRandom.current().nextInt());
    }

    /** The configured root, if any: {@code SHARRAY_TEMP_FOLDER} or {@code -Dsharray.tempFolder}. */
    static Path configuredRoot() {
        String p = System.getProperty("sharray.tempFolder");
        String source = "-Dsharray.tempFolder";
        if (p == null || p.isBlank()) {
            p = System.getenv("SHARRAY_TEMP_FOLDER");
            source = "SHARRAY_TEMP_FOLDER";
        }
        if (p == null || p.isBlank()) {
            return null;
        }
        try {
            return Path.of(p).toAbsolutePath();
        } catch (java.nio.file.InvalidPathException e) {
            // a non-ASCII folder in a JVM whose file names are ASCII (LANG=C): the JDK's message names neither
            throw new IllegalArgumentException(source + " " + p + " cannot be a file name in this JVM (file names are "
                + System.getProperty("sun.jnu.encoding") + ": " + e.getReason() + "); use a UTF-8 locale"
                + " (LANG=C.UTF-8) or a folder with an ASCII name", e);
        }
    }

    /** Chooses the root for an array of {@code bytes}, checked per array. */
    static Path selectRoot(Path explicit, long bytes) {
        return selectRoot(explicit, bytes, false);
    }

    /**
     * Chooses the root for an array of {@code bytes}, checked per array.
     *
     * @param releaseCaches whether to have the process's array caches release what they keep ({@link ArrayCaches})
     *     before leaving {@code /dev/shm} for want of room: set for a new array, not for a look at where arrays go
     */
    static Path selectRoot(Path explicit, long bytes, boolean releaseCaches) {
        if (explicit != null) {
            return explicit.toAbsolutePath();
        }
        Path configured = configuredRoot();
        if (configured != null) {
            return configured;
        }
        final long cachesReleased = releaseCaches ? ArrayCaches.generation() : 0;
        if (Files.isDirectory(DEV_SHM) && Files.isWritable(DEV_SHM) && DevShm.USABLE && (devShmRoom(bytes) >= bytes
                || releaseCaches && ArrayCaches.releasedSince(cachesReleased, DEV_SHM, bytes, devShmRoom(bytes), false)
                && devShmRoom(bytes) >= bytes)) {
            return DEV_SHM;
        }
        return Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
    }

    /**
     * @return the bytes an array of {@code bytes} may take in {@code /dev/shm}, its headroom kept: at least 0, or -1
     *     when the free space cannot be told
     */
    private static long devShmRoom(long bytes) {
        final long space = usableSpace(DEV_SHM);
        if (space < 0) {
            return -1;
        }
        // free - headroom, not bytes + headroom: that sum wraps negative for a size near 2^63
        final long free = bytes < MEMORY_CHECK_BYTES ? space : Math.min(space, memoryRoom(DEV_SHM));
        return Math.max(0, free - SHM_HEADROOM);
    }

    /** Whether this user may keep arrays in {@code /dev/shm}, told once per process (with a warning if not). */
    private static final class DevShm {
        static final boolean USABLE = isUsableDefaultRoot(DEV_SHM);
    }

    /**
     * Another user must not be able to replace this user's folder under a default root: one writable by all without
     * the sticky bit (a Kubernetes {@code emptyDir} at {@code /dev/shm}) lets them rename it and put their own in its
     * place, which this process would then fill with arrays and the pool's worker argument files. And one they made
     * under this user's name first (to lock them out) is refused. Then the arrays go to {@code java.io.tmpdir}.
     *
     * @param root a default root
     * @return whether this user's arrays may go there; if not, a warning said why
     */
    static boolean isUsableDefaultRoot(Path root) {
        try {
            final Path realRoot = root.toRealPath();
            FolderSafety.requireOthersCannotReplaceEntries(realRoot, "to keep shared arrays under " + root);
            final Path userDir = realRoot.resolve(userFolderName());
            if (Files.exists(userDir, LinkOption.NOFOLLOW_LINKS)) {
                requireOwnDirectory(userDir);
            }
            return true;
        } catch (IOException e) {
            Log.get().warn("shared arrays go to java.io.tmpdir ({}) rather than {}: {}",
                System.getProperty("java.io.tmpdir"), root, e.getMessage());
            return false;
        }
    }

    /** Every root this process might have used or that others commonly use, for the reaper and ls. */
    static List<Path> knownRoots() {
        Set<Path> roots = new LinkedHashSet<>();
        Path configured = configuredRoot();
        if (configured != null) {
            roots.add(configured);
        }
        roots.add(DEV_SHM);
        roots.add(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath());
        roots.addAll(OWNER_FOLDERS.keySet());
        List<Path> result = new ArrayList<>();
        for (Path r : roots) {
            if (Files.isDirectory(r)) {
                result.add(r);
            }
        }
        return result;
    }

    /**
     * Calls {@code visitor} for every entry of this user's sharray folder under every known root. A folder of that
     * name that is a symbolic link or belongs to another user is skipped: anyone may create one in {@code /tmp},
     * and the reaper deletes what it finds in it.
     */
    static void forEachUserFolderEntry(java.util.function.Consumer<Path> visitor) {
        forEachUserFolderEntry(visitor, (folder, e) -> { });
    }

    /**
     * The same, telling {@code unreadable} of a user folder that is there but could not be read to its end (an I/O
     * error, say): what it holds was not all visited.
     */
    static void forEachUserFolderEntry(java.util.function.Consumer<Path> visitor,
                                       java.util.function.BiConsumer<Path, Exception> unreadable) {
        for (Path root : knownRoots()) {
            Path userDir = root.resolve(userFolderName());
            if (!Files.exists(userDir, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            try {
                requireOwnDirectory(userDir);
                // what the reaper deletes there by path, another user who can rename entries of the root could swap
                final Path realRoot = root.toRealPath();
                FolderSafety.requireOthersCannotReplaceEntries(realRoot, "to list or clean " + userDir);
                userDir = realRoot.resolve(userFolderName());
            } catch (IOException e) {
                Log.get().warn("skipping {}: {}", userDir, e.getMessage());
                continue;
            }
            try (java.nio.file.DirectoryStream<Path> entries = Files.newDirectoryStream(userDir)) {
                entries.forEach(visitor);
            } catch (IOException | java.nio.file.DirectoryIteratorException e) {
                if (Files.exists(userDir, LinkOption.NOFOLLOW_LINKS)) { // else it vanished while listing
                    unreadable.accept(userDir, e);
                }
            }
        }
    }

    /** @return the bytes this process may still use in {@code dir}'s file system, or -1 when unknown */
    static long usableSpace(Path dir) {
        final Posix.FileSystemSpace fs = Posix.fileSystemOf(dir.toString());
        if (fs != null) {
            return fs.usableBytes();
        }
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            // unknown, not 0: out of file descriptors (EMFILE), say, the store cannot be looked up, and 0 made
            // create report a full file system with tens of GB free
            return -1;
        }
    }

    /**
     * @param dir a folder
     * @return the memory a new file in {@code dir} can take when it is a tmpfs (its files are memory, see
     *     {@link MemoryRoom}), else {@link Long#MAX_VALUE}
     */
    static long memoryRoom(Path dir) {
        return isTmpfs(dir) ? MemoryRoom.available() : Long.MAX_VALUE;
    }

    /** @return whether {@code dir} is on a tmpfs, whose files are memory (false when that cannot be told) */
    static boolean isTmpfs(Path dir) {
        final Posix.FileSystemSpace fs = Posix.fileSystemOf(dir.toString());
        return fs != null ? fs.type() == Posix.TMPFS_MAGIC : TMPFS.equals(fileSystemType(dir));
    }

    /** @return the file system type of {@code dir} ("tmpfs", "ext4", ...), or "" when unknown */
    static String fileSystemType(Path dir) {
        try {
            return Files.getFileStore(dir).type();
        } catch (IOException e) {
            return "";
        }
    }

    /** This process's folder under {@code root}, created (0700) on first use. */
    static Path ownerFolder(Path root) {
        JvmAccess.requireFlags(); // before any file is made (a pool's rings, an array's files)
        final Path folder = OWNER_FOLDERS.computeIfAbsent(root.toAbsolutePath(), TempFolders::createOwnerFolder);
        if (Segments.exiting()) {
            // the exit hook may have passed its removal of the empty folders: one made now would stay
            try {
                Files.deleteIfExists(folder);
            } catch (IOException e) {
                // not empty: the hook keeps it too (arrays other processes hold)
            }
            throw new IllegalStateException("cannot use a sharray folder under " + root + ": this JVM is exiting, and"
                + " sharray's shutdown hook has already removed this process's folders");
        }
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            recreate(folder);
        }
        requireSameIdentity(folder);
        return folder;
    }

    /** @return the identities of {@code folder} and of its parent (not following links) */
    private static List<Object> identity(Path folder) throws IOException {
        return List.of(Files.readAttributes(folder.getParent(), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
            .fileKey(), Files.readAttributes(folder, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey());
    }

    private static void requireSameIdentity(Path folder) {
        final List<Object> made = FOLDER_IDENTITIES.get(folder);
        final List<Object> now;
        try {
            now = identity(folder);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot check this process's sharray folder " + folder + ": " + reason(e), e);
        }
        if (made != null && !made.equals(now)) {
            throw new UncheckedIOException(new IOException(folder + " (or the folder it is in) is not the one this"
                + " process made: something put another in its place (another user?); refusing to use it"));
        }
    }

    /**
     * Makes this process's folder again where something else removed it (a tmp cleaner such as systemd-tmpfiles, a
     * user's {@code rm -rf /dev/shm/sharray-*}): before, every later create in this process failed, and with a wrong
     * reason ("not enough space ... 0 bytes are free", the free space of a folder that is not there).
     */
    private static void recreate(Path folder) {
        final Path userDir = folder.getParent();
        try {
            try {
                Files.createDirectory(userDir, PosixFilePermissions.asFileAttribute(DIR_MODE));
            } catch (FileAlreadyExistsException e) {
                // still there, or made again by another process of this user
            }
            requireOwnDirectory(userDir);
            try {
                Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(DIR_MODE));
                Files.setPosixFilePermissions(folder, DIR_MODE);
            } catch (FileAlreadyExistsException e) {
                // another thread of this process made it again meanwhile, unless something else is in its place
                if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
                    throw new IOException(folder + " is not a directory (a symbolic link or a file is in its place):"
                        + " refusing to use it");
                }
            }
            FOLDER_IDENTITIES.put(folder, identity(folder));
        } catch (IOException e) {
            throw new UncheckedIOException("this process's sharray folder " + folder + " was removed, and cannot be"
                + " made again: " + reason(e), e);
        }
    }

    static Map<Path, Path> ownerFolders() {
        return OWNER_FOLDERS;
    }

    private static Path createOwnerFolder(Path root) {
        try {
            Files.createDirectories(root);
            // resolved once, and used as checked: a link on the way (another user's, in a folder they can write)
            // could otherwise lead each later step somewhere else
            final Path realRoot = root.toRealPath();
            FolderSafety.requireOthersCannotReplaceEntries(realRoot, "to keep shared arrays under " + root);
            final Path userDir = realRoot.resolve(userFolderName());
            try {
                Files.createDirectory(userDir, PosixFilePermissions.asFileAttribute(DIR_MODE));
            } catch (FileAlreadyExistsException e) {
                // shared by this user's processes
            }
            requireOwnDirectory(userDir);
            Files.setPosixFilePermissions(userDir, DIR_MODE);
            Path folder = userDir.resolve(Lazy.HOST + processTag() + "-" + randomHex());
            Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(DIR_MODE));
            // removed at exit when empty, also in a process that only ran a pool (its files were in it) and never
            // created or opened an array, which is what installed the hook before
            Segments.installExitHook();
            Files.setPosixFilePermissions(folder, DIR_MODE); // umask may have narrowed it further; make it exact
            // the real path: open(descriptor) finds a process's own arrays by real path, so a root reached
            // through a symlink or ".." must not make the creator's handle and a reopened one two mappings
            final Path real = folder.toRealPath();
            FOLDER_IDENTITIES.put(real, identity(real));
            return real;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the sharray folder under " + root + ": " + reason(e), e);
        }
    }

    /** @return why a file operation failed, in words: most file-system exceptions' message is the path alone */
    private static String reason(IOException e) {
        if (!(e instanceof FileSystemException)) {
            return e.getMessage();
        }
        final String file = ((FileSystemException) e).getFile();
        if (e instanceof FileAlreadyExistsException) {
            return file + " exists and is not a directory";
        } else if (e instanceof NoSuchFileException) {
            return file + " cannot be created there (no such file or directory)";
        } else if (e instanceof AccessDeniedException) {
            return "permission denied on " + file;
        }
        final String why = ((FileSystemException) e).getReason();
        return why == null ? e.getMessage() : file + ": " + why;
    }

    /**
     * The per-user folder may already exist under a shared root (/tmp, /dev/shm): it must be a real directory
     * (not a symbolic link) owned by this process's user. Otherwise another user could read the arrays put
     * there, and a process running as root, whose chmod always succeeds, would not notice.
     */
    static void requireOwnDirectory(Path dir) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(dir + " is not a directory (a symbolic link or a file is in its place): refusing to use it");
        }
        int owner = (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        Integer mine = effectiveUid(owner);
        if (mine != null && owner != mine) {
            throw new IOException(dir + " belongs to uid " + owner + ", not to this process's uid " + mine
                + ": refusing to use it");
        }
    }

    /**
     * @param owner the owner of a file about to be checked: when /proc/self names that uid, no native call is made
     * @return this process's effective uid, or null when it cannot be told
     */
    static Integer effectiveUid(int owner) {
        Integer mine = procSelfUid();
        if (mine == null || owner != mine) {
            // no /proc, or it names another uid (/proc/self belongs to root in a non-dumpable process): ask libc
            Integer euid = Posix.euid();
            if (euid != null) {
                mine = euid;
            }
        }
        return mine;
    }

    /**
     * @return the owner of /proc/self, which is the effective uid of a (dumpable) process, or null. Read
     *         first because it needs no native call: asking libc would load JNA (~50 ms in a fresh JVM) on
     *         the way to every pool's first worker.
     */
    private static Integer procSelfUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return null;
        }
    }

    /** Creates an empty file with mode 0600. */
    static void createFile(Path file) throws IOException {
        Files.createFile(file, PosixFilePermissions.asFileAttribute(FILE_MODE));
        Files.setPosixFilePermissions(file, FILE_MODE);
    }

    /**
     * @return what names this process in a folder name, {@code -n<pid namespace>-<pid>-t<start>}, the namespace part
     *     only in a pid namespace other than the initial one (a container's): a host process's names stay as they
     *     were, and so does the length of the paths in its folder (a pool's socket path has a limit of ~107 bytes).
     *     A host name never holds a '-' (see {@code hostName()}), so builds that read
     *     {@code <host>-<pid>-t<start>-<random>} read the host as {@code <host>-n<namespace>}.
     */
    static String processTag() {
        final long ns = ProcessIdentity.PID_NAMESPACE;
        return (ns != 0 && ns != ProcessIdentity.INIT_PID_NAMESPACE ? "-n" + ns : "") + "-" + ProcessIdentity.PID
            + "-t" + ProcessIdentity.START;
    }

    /**
     * @return the pid namespace an owner folder name (or a reaper's claim) records ({@link #processTag()}), or 0
     *     when it records none or is no such name
     */
    static long pidNamespaceOf(String folderName) {
        if (parseOwner(folderName) == null) {
            return 0;
        }
        final int startBegin = digitsBefore(folderName, folderName.length() - RANDOM_HEX - 1);
        final int pidBegin = digitsBefore(folderName, startBegin - 2);
        final int nsEnd = pidBegin - 1;
        final int nsBegin = digitsBefore(folderName, nsEnd);
        if (nsBegin == nsEnd || nsBegin < 3 || folderName.charAt(nsBegin - 1) != 'n'
            || folderName.charAt(nsBegin - 2) != '-') {
            return 0;
        }
        try {
            return Long.parseLong(folderName, nsBegin, nsEnd, 10);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * @return whether the folder (or claim) {@code folderName} belongs to a process of another pid namespace than
     *     this one (another container sharing the root, or the host): its pid and start time name no process that
     *     can be checked here, so it can be judged neither alive nor dead, and is left alone. A name without a
     *     namespace is of the initial one: a host process's (or of an older build, judged so too: in a container,
     *     its folders are then left to it, never deleted under it). False when this process's namespace is unknown.
     */
    static boolean inOtherPidNamespace(String folderName) {
        final long self = ProcessIdentity.PID_NAMESPACE;
        if (self == 0) {
            return false; // cannot be told: judged as before
        }
        final long ns = pidNamespaceOf(folderName);
        return (ns == 0 ? ProcessIdentity.INIT_PID_NAMESPACE : ns) != self;
    }

    /**
     * Refuses to share the array file {@code realFile} with a process of another pid namespace: holders are named by
     * pid in the reference file, and each side would take the other's for dead (or for another process) and reclaim
     * its references, deleting the array under it.
     *
     * @throws InvalidDescriptorException when the file's owner folder belongs to another pid namespace
     */
    static void requireSamePidNamespace(Path realFile) {
        final Path owner = realFile.getParent();
        if (owner != null && owner.getFileName() != null && inOtherPidNamespace(owner.getFileName().toString())) {
            final long ns = pidNamespaceOf(owner.getFileName().toString());
            throw new InvalidDescriptorException("path", realFile + " belongs to a process of another pid namespace"
                + " (pid namespace " + (ns == 0 ? ProcessIdentity.INIT_PID_NAMESPACE : ns) + ", this process's is "
                + ProcessIdentity.PID_NAMESPACE + "; another container?): sharray names the holders of an array by"
                + " pid, and cannot share arrays across pid namespaces");
        }
    }

    /**
     * Parses an owner folder name.
     *
     * @return {pid, start}, or null when the name is not an owner folder
     */
    static long[] parseOwner(String folderName) {
        // <host>-<pid>-t<start>-<8 hex>, read from the end without a regular expression: a worker checks it on
        // every open of a descriptor, where the pattern's greedy host part cost ~90 us while still interpreted
        final int hexStart = folderName.length() - RANDOM_HEX;
        if (hexStart < 1 || folderName.charAt(hexStart - 1) != '-') {
            return null;
        }
        for (int i = hexStart; i < folderName.length(); i++) {
            final char c = folderName.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return null;
            }
        }
        final int startEnd = hexStart - 1;
        final int startBegin = digitsBefore(folderName, startEnd);
        if (startBegin == startEnd || startBegin < 2 || folderName.charAt(startBegin - 1) != 't'
            || folderName.charAt(startBegin - 2) != '-') {
            return null;
        }
        final int pidEnd = startBegin - 2;
        final int pidBegin = digitsBefore(folderName, pidEnd);
        if (pidBegin == pidEnd || pidBegin < 2 || folderName.charAt(pidBegin - 1) != '-') {
            return null; // also needs a host of at least one character before that '-'
        }
        try {
            return new long[] {Long.parseLong(folderName, pidBegin, pidEnd, 10),
                Long.parseLong(folderName, startBegin, startEnd, 10)};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** @return where the run of ASCII digits that ends at {@code end} (exclusive) begins */
    private static int digitsBefore(String s, int end) {
        int i = end;
        while (i > 0 && s.charAt(i - 1) >= '0' && s.charAt(i - 1) <= '9') {
            i--;
        }
        return i;
    }

    /**
     * sharray-&lt;user&gt; folders {@link #requireOwnUserFolder} has checked, with the folders above them: one stat per
     * folder and process (nobody else can change them once they passed).
     */
    private static final Set<Path> OWN_USER_FOLDERS = ConcurrentHashMap.newKeySet();

    /**
     * A descriptor may name a sharray file under any root (the creator may have chosen one with
     * {@code folder(...)}), so the layout alone is what {@link #isSharrayDataFile} checks. Anyone can build that
     * layout in a folder of their own, though: the sharray-&lt;user&gt; folder must also belong to this user, as
     * {@link #requireOwnDirectory} demands when creating arrays, or we would map a file its owner can truncate
     * under us (SIGBUS) or fill at will.
     *
     * @param realFile a real path for which {@link #isSharrayDataFile} holds
     * @throws InvalidDescriptorException when the folder belongs to another user
     */
    static void requireOwnUserFolder(Path realFile) {
        final Path user = realFile.getParent().getParent();
        if (OWN_USER_FOLDERS.contains(user)) {
            return;
        }
        try {
            requireOwnDirectory(user);
            FolderSafety.requireOthersCannotReplaceEntries(user.getParent(), "to open arrays under " + user.getParent());
        } catch (IOException e) {
            throw new InvalidDescriptorException("path", realFile + " is not in a sharray folder of this user: "
                + e.getMessage());
        }
        OWN_USER_FOLDERS.add(user);
    }

    /**
     * @param realFile a real path
     * @return whether it is an array file of this user, reference-counted (and deleted by its last release): in the
     *     layout of a sharray folder ({@link #isSharrayDataFile}) whose sharray-&lt;user&gt; folder is this user's
     *     ({@link #requireOwnUserFolder}). Another user's file laid out so is a plain file.
     */
    static boolean isOwnArrayFile(Path realFile) {
        if (!isSharrayDataFile(realFile)) {
            return false;
        }
        try {
            requireOwnUserFolder(realFile);
            return true;
        } catch (InvalidDescriptorException e) {
            return false;
        }
    }

    /**
     * True when {@code file} (resolved through symlinks) lies directly in an owner folder of this user:
     * {@code .../sharray-<user>/<owner>/<name>.npy}. Descriptors may only map such files.
     */
    static boolean isSharrayDataFile(Path realFile) {
        Path owner = realFile.getParent();
        Path user = owner == null ? null : owner.getParent();
        return user != null && realFile.getFileName().toString().endsWith(".npy")
            && user.getFileName() != null && user.getFileName().toString().equals(userFolderName())
            && parseOwner(owner.getFileName().toString()) != null;
    }
}

package dev.sharray;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.CRC32C;

/**
 * Native libraries shipped inside jars, as files {@code dlopen} can map: the codec's library, JNA's own
 * {@code libjnidispatch.so} and jffi's {@code libjffi-1.2.so}.
 *
 * <p>A library in a plain folder (such as {@code target/classes}) is used where it is. A library inside a
 * jar is extracted once per content, safely with any number of processes starting at once and without
 * locks: the cache folder is named by the library's length and CRC-32C
 * ({@code <cacheRoot>/sharray-native-<16 hex>/<file name>}); a process that finds the file there with
 * exactly the resource's bytes uses it; otherwise it writes the bytes to a unique temporary name in that
 * folder, fsyncs, and renames it atomically onto the final name. Concurrent winners write the same bytes,
 * and a rename never changes a file another process has already mapped, so every process maps a complete,
 * correct library. A cached file with other bytes (truncated, tampered, or another build whose name
 * clashed) is replaced the same way. No cryptographic hash: the byte comparison is exact, and a JVM's first
 * {@code MessageDigest} costs ~15 ms of provider set-up that every worker would pay.
 *
 * <p>Cache root: {@code -Dsharray.nativeCache}, else {@code $XDG_CACHE_HOME/sharray}, else
 * {@code ~/.cache/sharray} (an absolute home only); when that cannot be written, or is on a {@code noexec} mount,
 * {@code java.io.tmpdir/sharray-<user>-native} (created 0700 and refused unless owned by this user and closed to
 * others). Under any root, a library is loaded only from a folder that no other user can change
 * ({@link #requireSafeFolder}).
 *
 * <p>For sharray's modules; not a general-purpose API.
 */
public final class NativeFiles {
    /** JNA's own library inside its jar, on the one platform sharray builds native code for. */
    static final String JNA_DISPATCH = "com/sun/jna/linux-x86-64/libjnidispatch.so";
    private static final String JNA_BOOT_PATH = "jna.boot.library.path";
    /** jffi's library inside its native jar, on the one platform sharray builds native code for. */
    static final String JFFI_STUB = "jni/x86_64-Linux/libjffi-1.2.so";
    private static final String JFFI_BOOT_PATH = "jffi.boot.library.path";
    private static final String FOLDER_PREFIX = "sharray-native-";
    private static final String TEMP_SUFFIX = ".tmp";
    /** Temporary files older than this were left by a crashed process and are deleted. */
    private static final long STALE_TEMP_MILLIS = 10 * 60 * 1000L;
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rwxr-xr-x");

    private NativeFiles() {
    }

    /**
     * Locates a library resource with {@code loader} and returns a loadable file.
     *
     * @param loader   the class loader to search, {@code null} for the system class loader
     * @param resource the resource name, such as {@code linux-x86-64/libsharraycodec.so}
     * @return an absolute path to the library file, named as the resource
     * @throws IOException when the resource is missing or cannot be extracted anywhere
     */
    public static Path locate(ClassLoader loader, String resource) throws IOException {
        ClassLoader l = loader == null ? ClassLoader.getSystemClassLoader() : loader;
        URL url = l.getResource(resource);
        if (url == null) {
            throw new IOException(resource + " is not on the classpath");
        }
        // read through the loader: it reads from the jar it already has open, where a URL connection would
        // open the jar again and read its whole central directory
        return locate(url, fileName(resource), () -> {
            try (InputStream in = l.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IOException(resource + " is not on the classpath");
                }
                return in.readAllBytes();
            }
        }, cacheRoots());
    }

    /**
     * Lets JNA load its own library from this cache instead of extracting it to a new temporary file in
     * every JVM (~13 ms, with a {@code SecureRandom} for the name): sets {@code jna.boot.library.path} to
     * the cached copy's folder. Call before JNA's first use; does nothing when the property is set already,
     * or when the library cannot be found or cached (JNA then extracts it as usual). Never throws.
     *
     * @return whether JNA will load its library from a folder named for it ({@code jna.boot.library.path}, set here
     *     or by the user); false when JNA will extract it itself, which fails, with a long warning of its own, where
     *     no folder could be written to
     */
    public static synchronized boolean prepareJna() {
        if (preparingJna || System.getProperty(JNA_BOOT_PATH) != null || !onLinuxAmd64()) {
            return System.getProperty(JNA_BOOT_PATH) != null;
        }
        // the owner check of a shared fallback root may ask libc (Posix) for the uid, whose set-up calls this
        // again on the same thread: that inner call returns at once, and JNA extracts its library itself
        preparingJna = true;
        try {
            final ClassLoader jnaLoader;
            try {
                // the loader of JNA's classes, so the library matches their version (a class literal does not initialise)
                jnaLoader = com.sun.jna.Native.class.getClassLoader();
            } catch (LinkageError noJna) {
                return false;
            }
            final Path library = cached(jnaLoader, JNA_DISPATCH);
            if (library == null) {
                return false;
            } else {
                System.setProperty(JNA_BOOT_PATH, library.getParent().toString());
                if (System.getProperty(JNA_TMPDIR) == null && !hasCacheHome()) {
                    // JNA's start-up cleans its temporary folder, $XDG_CACHE_HOME/JNA/temp or ~/.cache/JNA/temp,
                    // creating it first: with user.home "?" (a uid without a passwd entry) that made
                    // "?/.cache/JNA/temp" in the working folder of every JVM. It needs none with the boot path set.
                    System.setProperty(JNA_TMPDIR, library.getParent().toString());
                }
                return true;
            }
        } finally {
            preparingJna = false;
        }
    }

    /**
     * Lets jffi (the native side of jnr-ffi, which Chronicle's POSIX layer loads for a {@code MAPPED_FILE} array)
     * load its library from this cache instead of extracting it to a temporary file in every such JVM, a file
     * that a JVM killed between the extraction and the load leaves in the temporary folder: sets
     * {@code jffi.boot.library.path} to the cached copy's folder. Call before Chronicle's first use; does
     * nothing when the property is set already, or when the library cannot be found or cached (jffi then
     * extracts it as usual). Never throws.
     */
    static synchronized void prepareJffi() {
        if (System.getProperty(JFFI_BOOT_PATH) != null || !onLinuxAmd64()) {
            return;
        }
        // jnr-ffi comes with Chronicle, on the class path beside sharray
        final Path library = cached(NativeFiles.class.getClassLoader(), JFFI_STUB);
        if (library != null) {
            System.setProperty(JFFI_BOOT_PATH, library.getParent().toString());
        }
    }

    private static boolean onLinuxAmd64() {
        return "amd64".equals(System.getProperty("os.arch")) && System.getProperty("os.name", "").startsWith("Linux");
    }

    /** @return the library resource as a loadable file ({@link #locate}), or null when it cannot be had */
    private static Path cached(ClassLoader loader, String resource) {
        try {
            final Path library = locate(loader, resource);
            return library.getFileName().toString().equals(fileName(resource)) ? library : null;
        } catch (IOException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    private static final String JNA_TMPDIR = "jna.tmpdir";

    /** @return whether JNA finds a cache folder of its own: XDG_CACHE_HOME, else an absolute user.home */
    private static boolean hasCacheHome() {
        final String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return true;
        }
        final String home = System.getProperty("user.home");
        return home != null && !home.isBlank() && Path.of(home).isAbsolute();
    }

    /** Set while {@link #prepareJna()} runs (guarded by the class lock). */
    private static boolean preparingJna;

    /**
     * Returns a loadable file for the library at {@code url}: the file itself for a {@code file:} URL,
     * otherwise the cached extraction under the first root that works.
     *
     * @param url   the library resource
     * @param roots cache roots to try in order
     * @return an absolute path to the library file
     */
    static Path locate(URL url, List<Path> roots) throws IOException {
        return locate(url, fileName(url.getPath()), () -> read(url), roots);
    }

    private static String fileName(String resource) {
        return resource.substring(resource.lastIndexOf('/') + 1);
    }

    /** The bytes of the library resource. */
    @FunctionalInterface
    private interface Resource {
        byte[] read() throws IOException;
    }

    private static Path locate(URL url, String fileName, Resource resource, List<Path> roots) throws IOException {
        // Reading and extracting waits for nobody, and is done once per JVM (a library's class initialiser records
        // a failure for the JVM's life): on an interrupted thread its channels were closed, and the native codec
        // was unavailable for good ("cannot extract ...: ClosedByInterruptException"). The interrupt is set aside
        // and given back; extracting again is harmless (a temporary file, moved into place atomically).
        try {
            return InterruptsSetAside.call(() -> {
                try {
                    return locateNow(url, fileName, resource, roots);
                } catch (IOException e) {
                    throw new Failed(e);
                }
            });
        } catch (Failed e) {
            throw e.io;
        }
    }

    /** Carries an {@link IOException} through {@link InterruptsSetAside}, which takes unchecked work. */
    private static final class Failed extends RuntimeException {
        private final IOException io;

        Failed(IOException io) {
            super(io);
            this.io = io;
        }
    }

    private static Path locateNow(URL url, String fileName, Resource resource, List<Path> roots) throws IOException {
        if ("file".equals(url.getProtocol())) {
            try {
                Path p = Path.of(url.toURI());
                if (Files.isRegularFile(p)) {
                    return p.toAbsolutePath();
                }
            } catch (URISyntaxException | IllegalArgumentException e) {
                // fall through: extract it like any other resource
            }
        }
        byte[] bytes = resource.read();
        IOException failure = null;
        for (Path root : roots) {
            try {
                return extract(bytes, fileName, root);
            } catch (IOException | UnsupportedOperationException | SecurityException e) {
                IOException io = new IOException("cannot extract the native library under " + root + ": " + e, e);
                if (failure == null) {
                    failure = io;
                } else {
                    failure.addSuppressed(io);
                }
            }
        }
        throw failure != null ? failure : new IOException("no cache folder to extract " + fileName + " into");
    }

    /**
     * Puts the library bytes at {@code <root>/<folderName(bytes)>/<fileName>} unless a correct copy is
     * already there.
     *
     * @return the absolute path of the cached library
     */
    static Path extract(byte[] bytes, String fileName, Path root) throws IOException {
        Path folder = root.resolve(folderName(bytes)).toAbsolutePath();
        if (root.toAbsolutePath().equals(sharedTempRoot())) {
            checkPrivate(root.toAbsolutePath());
        }
        if (Files.isDirectory(folder)) {
            final Path target = requireSafeFolder(folder).resolve(fileName);
            if (matches(target, bytes) && isSafeFile(target)) {
                return target;
            }
        }
        // only before a copy is made, not in every start-up that finds one (reading the mounts costs a cold JVM
        // ~0.5-3 ms): a root that was noexec when the library was first looked for never gets a copy
        if (MountOptions.isNoExec(root)) {
            throw new IOException(root + " is on a file system mounted noexec, from which no library can be loaded");
        }
        createPrivateFolders(folder);
        folder = requireSafeFolder(folder);
        final Path target = folder.resolve(fileName);
        deleteStaleTemps(folder, fileName);
        Path temp = folder.resolve("." + fileName + "." + ProcessHandle.current().pid() + "."
            + Long.toHexString(ThreadLocalRandom.current().nextLong()) + TEMP_SUFFIX);
        try {
            try (FileChannel ch = FileChannel.open(temp, EnumSet.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(FILE_MODE))) {
                ByteBuffer buf = ByteBuffer.wrap(bytes);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            Files.setPosixFilePermissions(temp, FILE_MODE); // the umask may have narrowed the create mode
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the cache folder " + folder + " does not support atomic renames", e);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
        syncFolder(folder);
        if (!matches(target, bytes)) {
            throw new IOException("the extracted library at " + target + " does not match the resource");
        }
        return target;
    }

    /**
     * @param bytes a library's bytes
     * @return the name of its cache folder: {@code sharray-native-} and 16 hex digits of its length and CRC-32C
     */
    static String folderName(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        HexFormat hex = HexFormat.of();
        return FOLDER_PREFIX + hex.toHexDigits(bytes.length) + hex.toHexDigits((int) crc.getValue());
    }

    /** True when {@code file} is a regular file holding exactly {@code bytes}. */
    private static boolean matches(Path file, byte[] bytes) throws IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try {
            if (Files.size(file) != bytes.length) {
                return false;
            }
            return Arrays.equals(bytes, Files.readAllBytes(file));
        } catch (java.nio.file.NoSuchFileException e) {
            return false;
        }
    }

    /**
     * Any cache root may be shared with other users ({@code -Dsharray.nativeCache}, or {@code XDG_CACHE_HOME}
     * naming a team's folder): a library is loaded only from a folder that no other user can change, or they
     * could put their own code into this JVM by replacing the file, or a folder on its path, between the byte
     * check and {@code dlopen}. The folder must belong to this user (or root) and be writable by no one else;
     * each folder above it must belong to this user or root (or be the kernel's overflow uid, the owner shown
     * for unmapped files in a user namespace) and be writable by others only when sticky, as {@code /tmp} is.
     *
     * <p>The same goes for any file a JVM maps as code, such as a class-data (AppCDS) archive.
     *
     * @param folder an existing folder
     * @return the folder's real path, from which the library is then loaded (a symbolic link on the way is
     *     checked where it leads, and not followed again at load time)
     * @throws IOException when another user could change the folder, or it cannot be checked
     */
    public static Path requireSafeFolder(Path folder) throws IOException {
        return requireSafeFolder(folder, "to load a native library from");
    }

    /**
     * {@link #requireSafeFolder(Path)} for another file a JVM runs or maps as code from the folder.
     *
     * @param folder an existing folder
     * @param use    what is refused, for the message: "to start worker JVMs from a launch jar in"; the folder follows
     * @return the folder's real path
     * @throws IOException when another user could change the folder, or it cannot be checked
     */
    public static Path requireSafeFolder(Path folder, String use) throws IOException {
        final Path real = folder.toRealPath();
        FolderSafety.requirePrivate(real, use + " " + real);
        return real;
    }

    /**
     * Requires a file a JVM runs (a library, a launch jar), in a folder that passed {@link #requireSafeFolder}, to be
     * a regular file of this user or root that no one else can write.
     *
     * @param file the file
     * @throws IOException when it is a link, another user's, or writable by others
     */
    public static void requireSafeFile(Path file) throws IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || !isSafeFile(file)) {
            throw new IOException(file + " is not a regular file of this user or root that only they can write:"
                + " refusing to run it");
        }
    }

    /** @return whether {@code file}, in a safe folder, is also safe to load: ours or root's, writable by no one else */
    private static boolean isSafeFile(Path file) throws IOException {
        final java.util.Map<String, Object> a = Files.readAttributes(file, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
        return FolderSafety.isOwnOrRoot((Integer) a.get("uid")) && ((Integer) a.get("mode") & 0022) == 0;
    }

    /** Creates missing folders of {@code folder} with mode 0700 (existing ones are left as they are). */
    private static void createPrivateFolders(Path folder) throws IOException {
        List<Path> missing = new ArrayList<>();
        for (Path p = folder; p != null && !Files.isDirectory(p); p = p.getParent()) {
            missing.add(0, p);
        }
        for (Path p : missing) {
            try {
                Files.createDirectory(p, PosixFilePermissions.asFileAttribute(TempFolders.DIR_MODE));
            } catch (FileAlreadyExistsException e) {
                if (!Files.isDirectory(p)) {
                    throw e; // a concurrent process made the folder: fine; a file in the way: not
                }
            }
        }
        if (!Files.isWritable(folder)) {
            throw new IOException(folder + " is not writable");
        }
    }

    /** Removes temporary files that crashed extractions left behind long ago. */
    private static void deleteStaleTemps(Path folder, String fileName) {
        long cutoff = System.currentTimeMillis() - STALE_TEMP_MILLIS;
        try (DirectoryStream<Path> temps = Files.newDirectoryStream(folder, "." + fileName + ".*" + TEMP_SUFFIX)) {
            for (Path t : temps) {
                try {
                    FileTime modified = Files.getLastModifiedTime(t, LinkOption.NOFOLLOW_LINKS);
                    if (modified.toMillis() < cutoff) {
                        Files.deleteIfExists(t);
                    }
                } catch (IOException e) {
                    // another process removed it first
                }
            }
        } catch (IOException e) {
            // best effort
        }
    }

    /** Makes the rename durable; best effort (not every file system lets a folder be opened). */
    private static void syncFolder(Path folder) {
        try (FileChannel ch = FileChannel.open(folder, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // the library is complete either way; only durability across a power cut is at stake
        }
    }

    /** @return the cache roots in order of preference; the last is the private folder in java.io.tmpdir */
    static List<Path> cacheRoots() {
        List<Path> roots = new ArrayList<>();
        String explicit = System.getProperty("sharray.nativeCache");
        if (explicit != null && !explicit.isBlank()) {
            roots.add(Path.of(explicit));
        } else {
            String xdg = System.getenv("XDG_CACHE_HOME");
            if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
                roots.add(Path.of(xdg, "sharray"));
            } else {
                String home = System.getProperty("user.home");
                // not "?" (a uid without a passwd entry), nor a relative $HOME (JDK 25 takes it for such a uid): the
                // cache would be made in whatever folder the JVM runs in
                if (home != null && !home.isBlank() && Path.of(home).isAbsolute()) {
                    roots.add(Path.of(home, ".cache", "sharray"));
                }
            }
        }
        roots.add(sharedTempRoot());
        return roots;
    }

    /** {@code java.io.tmpdir/sharray-<user>-native} (the user part named as the arrays' user folder). */
    static Path sharedTempRoot() {
        return Path.of(System.getProperty("java.io.tmpdir"), TempFolders.userFolderName() + "-native").toAbsolutePath();
    }

    /**
     * The fallback root lives in a folder every user can write to: it must be ours alone, or another
     * user could swap the library between our check of its bytes and {@code dlopen}. The same owner check
     * as the arrays' user folder (by uid), plus: nobody else may write to it.
     */
    private static void checkPrivate(Path root) throws IOException {
        if (!Files.isDirectory(root.getParent())) {
            // a mistyped or unmounted java.io.tmpdir: made here, parents and all, it stayed as a tree elsewhere
            throw new IOException("java.io.tmpdir " + root.getParent() + " is not a folder");
        }
        createPrivateFolders(root);
        TempFolders.requireOwnDirectory(root);
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(root, LinkOption.NOFOLLOW_LINKS);
        if (mode.contains(PosixFilePermission.GROUP_WRITE) || mode.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException(root + " is writable by other users (" + PosixFilePermissions.toString(mode)
                + "): refusing to load a native library from it");
        }
    }

    private static byte[] read(URL url) throws IOException {
        URLConnection c = url.openConnection();
        c.setUseCaches(false); // a cached JarFile would stay open (and stale) for the life of the JVM
        try (InputStream in = c.getInputStream()) {
            return in.readAllBytes();
        }
    }
}

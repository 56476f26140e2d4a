package dev.sharray.reducers;

import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Where things are: {@code Path}, {@code File} and {@code URI}. Each crosses as its string and is rebuilt by its own
 * parser, which touches no file and no network (a {@code URI}, unlike a {@code URL}, never resolves its host), so
 * decoding one costs no more than reading its string. A string the parser refuses (a NUL in a path, a malformed
 * URI) is a {@link MalformedDataException}.
 */
final class LocationValues {
    /**
     * Any class implementing {@code Path}: the JDK's own ({@code sun.nio.fs.UnixPath}) is not public, and a path of
     * another file system (a zip file's) is refused here, on write, where the reason can still be told.
     */
    static final Reducers.Handler PATH = (v, out) -> {
        out.writeByte(Tags.PATH);
        out.writeString(pathString((Path) v));
    };

    private LocationValues() {
    }

    /** @return the string a path crosses as, which {@code Path.of} rebuilds equal in the receiver */
    private static String pathString(Path path) {
        final FileSystem fs = path.getFileSystem();
        if (fs != FileSystems.getDefault()) {
            throw new ReducerException("cannot send the path " + path + " of a '" + fs.provider().getScheme()
                + "' file system (" + fs.getClass().getName() + "): only paths of the default file system cross, as"
                + " their string rebuilt with Path.of; send what opens that file system (a zip file's own path) and"
                + " the path's string, and open it in the task");
        }
        final String s = path.toString();
        // a name whose bytes are not valid in sun.jnu.encoding (a Latin-1 name listed on a UTF-8 system) has a
        // lossy string, with U+FFFD where those bytes were: Path.of would rebuild another path, maybe another file
        if (s.indexOf('\uFFFD') >= 0 && !rebuildsEqual(s, path)) {
            throw new ReducerException("cannot send the path " + s + ": its name holds bytes that are not valid "
                + System.getProperty("sun.jnu.encoding") + " (shown as U+FFFD), so its string, all that crosses,"
                + " names another file; rename the file, or send its bytes yourself");
        }
        return s;
    }

    private static boolean rebuildsEqual(String s, Path path) {
        try {
            return Path.of(s).equals(path);
        } catch (InvalidPathException e) {
            return false; // U+FFFD itself is not valid in sun.jnu.encoding (ASCII under LC_ALL=C)
        }
    }

    /** @return the handler for exactly {@code java.io.File} or {@code java.net.URI} (a binary name), or {@code null} */
    static Reducers.Handler handler(String name) {
        switch (name) {
            case "java.io.File":
                return (v, out) -> {
                    final String path = ((java.io.File) v).getPath();
                    if (path.indexOf('\0') >= 0) {
                        // new File accepts it, but no file can have it: every operation on such a File fails
                        throw new ReducerException("cannot send the File " + path.replace('\0', '?')
                            + ": its path holds a NUL character, which no file name can");
                    }
                    out.writeByte(Tags.FILE);
                    out.writeString(path);
                };
            case "java.net.URI":
                return (v, out) -> {
                    out.writeByte(Tags.URI);
                    out.writeString(v.toString()); // the form its serialization uses: new URI(toString()) is equal
                };
            default:
                return null;
        }
    }

    /** Reads a value of one of this class's tags (tag already read). */
    static Object read(byte tag, ValueReader in) {
        final int at = in.position() - 1;
        switch (tag) {
            case Tags.PATH: {
                final String s = string(in, "Path", at);
                try {
                    return Path.of(s);
                } catch (InvalidPathException e) {
                    // getReason and getIndex, not getMessage: that repeats the whole (hostile, maybe huge) string
                    throw new MalformedDataException("invalid Path at offset " + at + ": " + reason(e.getReason(),
                        e.getIndex()), e);
                }
            }
            case Tags.FILE: {
                final String s = string(in, "File", at);
                final int nul = s.indexOf('\0');
                if (nul >= 0) {
                    throw new MalformedDataException("invalid File at offset " + at + ": NUL character at index "
                        + nul);
                }
                return new java.io.File(s);
            }
            case Tags.URI: {
                final String s = string(in, "URI", at);
                try {
                    return new java.net.URI(s);
                } catch (java.net.URISyntaxException e) {
                    throw new MalformedDataException("invalid URI at offset " + at + ": " + reason(e.getReason(),
                        e.getIndex()), e);
                }
            }
            default:
                throw new MalformedDataException("not a location tag: " + tag);
        }
    }

    private static String reason(String reason, int index) {
        return index < 0 ? reason : reason + " at index " + index; // UnixPath's NUL check gives no index
    }

    private static String string(ValueReader in, String kind, int at) {
        final String s = in.readString(); // its length is checked against the bytes present first
        if (s == null) {
            throw new MalformedDataException("a null " + kind + " at offset " + at);
        }
        return s;
    }
}

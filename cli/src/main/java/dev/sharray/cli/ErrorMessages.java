package dev.sharray.cli;

import dev.sharray.InsufficientSpaceException;
import dev.sharray.pool.RemoteTaskException;
import dev.sharray.pool.WorkerCrashedException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** One-line, user-facing descriptions of exceptions. */
public final class ErrorMessages {
    private ErrorMessages() {
    }

    /**
     * @param t any throwable
     * @return a single line describing it without a stack trace
     */
    static String describe(Throwable t) {
        Throwable e = unwrap(t);
        String msg;
        final UncheckedIOException explained = explainedIoFailure(t);
        if (e instanceof CliException) {
            msg = e.getMessage();
        } else if (e instanceof IOException && explained != null) {
            // the library said what it was doing ("cannot create the sharray folder under X: ..."): the cause alone
            // names a path without the why ("already exists: X")
            msg = explained.getMessage();
        } else if (e instanceof FileSystemException fs) {
            msg = reason(fs) + (fs.getFile() != null ? ": " + fs.getFile() : "");
        } else if (e instanceof InsufficientSpaceException ise) {
            msg = "not enough space in " + ise.folder() + ": need " + Sizes.format(ise.requestedBytes()) + ", "
                + Sizes.format(ise.freeBytes()) + " free";
        } else if (e instanceof IOException) {
            msg = "I/O error: " + e.getMessage();
        } else if (e instanceof RemoteTaskException rt) {
            String cls = rt.remoteClassName();
            msg = "a worker failed: " + cls.substring(cls.lastIndexOf('.') + 1)
                + (rt.remoteMessage() != null ? ": " + rt.remoteMessage() : "");
        } else if (e instanceof WorkerCrashedException wc) {
            msg = "a worker JVM crashed: " + wc.getMessage();
        } else if (e instanceof OutOfMemoryError) {
            msg = "out of memory (" + e.getMessage() + "); try a smaller size or fewer workers";
        } else {
            msg = e.getClass().getSimpleName() + (e.getMessage() != null ? ": " + e.getMessage() : "");
        }
        msg = msg == null ? e.getClass().getSimpleName() : msg;
        return msg.replace('\n', ' ').replace('\r', ' ');
    }

    /**
     * Why an I/O call failed, without the path (for messages that name the file already): several file
     * system exceptions carry only the path as their message, e.g. an AccessDeniedException.
     *
     * @param t any throwable
     * @return e.g. "permission denied", "No space left on device", "the input shrank while encoding"
     */
    public static String reason(Throwable t) {
        Throwable e = unwrap(t);
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        } else if (e instanceof AccessDeniedException) {
            return "permission denied";
        } else if (e instanceof NotDirectoryException) {
            return "not a directory";
        } else if (e instanceof FileAlreadyExistsException) {
            return "already exists";
        } else if (e instanceof DirectoryNotEmptyException) {
            return "directory not empty";
        } else if (e instanceof FileSystemException fs) {
            return fs.getReason() != null ? fs.getReason() : "I/O error";
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /** @return the first UncheckedIOException around {@code t}'s cause that has a message of its own, or null */
    private static UncheckedIOException explainedIoFailure(Throwable t) {
        for (Throwable e = t; e != null && e.getCause() != e; e = e.getCause()) {
            if (e instanceof UncheckedIOException u && u.getCause() != null
                && !String.valueOf(u.getCause()).equals(u.getMessage())) {
                return u;
            }
        }
        return null;
    }

    private static Throwable unwrap(Throwable t) {
        Throwable e = t;
        while ((e instanceof UncheckedIOException || e instanceof TaskFailedException || e instanceof CompletionException || e instanceof ExecutionException
            || (e instanceof RuntimeException && e.getClass() == RuntimeException.class && e.getMessage() == null))
            && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}

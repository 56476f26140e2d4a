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
final class ErrorMessages {
    private ErrorMessages() {
    }

    /**
     * @param t any throwable
     * @return a single line describing it without a stack trace
     */
    static String describe(Throwable t) {
        Throwable e = unwrap(t);
        String msg;
        if (e instanceof CliException) {
            msg = e.getMessage();
        } else if (e instanceof NoSuchFileException nf) {
            msg = "no such file or directory: " + nf.getFile();
        } else if (e instanceof AccessDeniedException ad) {
            msg = "permission denied: " + ad.getFile();
        } else if (e instanceof NotDirectoryException nd) {
            msg = "not a directory: " + nd.getFile();
        } else if (e instanceof FileAlreadyExistsException fe) {
            msg = "already exists: " + fe.getFile();
        } else if (e instanceof DirectoryNotEmptyException de) {
            msg = "directory not empty: " + de.getFile();
        } else if (e instanceof FileSystemException fs) {
            msg = (fs.getReason() != null ? fs.getReason() : "I/O error") + (fs.getFile() != null ? ": " + fs.getFile() : "");
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

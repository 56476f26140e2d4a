package dev.sharray.pool;

import dev.sharray.reducers.ValueReader;
import dev.sharray.reducers.ValueWriter;

/**
 * Writes an exception as plain data (class name, message, stack trace, cause chain) and rebuilds it as
 * a {@link RemoteTaskException}: no exception object is ever deserialized, and the remote class need
 * not exist on the reading side.
 */
final class RemoteErrors {
    private static final int MAX_CAUSES = 8;
    private static final int MAX_FRAMES = 1024;

    private RemoteErrors() {
    }

    static void write(Throwable t, ValueWriter out) {
        int depth = 0;
        for (Throwable e = t; e != null && depth < MAX_CAUSES; e = e.getCause() == e ? null : e.getCause(), depth++) {
            out.writeBoolean(true);
            final String className = e instanceof RemoteTaskException ? ((RemoteTaskException) e).remoteClassName() : e.getClass().getName();
            final String message = e instanceof RemoteTaskException ? ((RemoteTaskException) e).remoteMessage() : e.getMessage();
            out.writeString(className);
            out.writeString(message);
            final StackTraceElement[] frames = e.getStackTrace();
            final int n = Math.min(frames.length, MAX_FRAMES);
            out.writeInt(n);
            for (int i = 0; i < n; i++) {
                out.writeString(frames[i].getClassName());
                out.writeString(frames[i].getMethodName());
                out.writeString(frames[i].getFileName());
                out.writeInt(frames[i].getLineNumber());
            }
        }
        out.writeBoolean(false);
    }

    static RemoteTaskException read(ValueReader in) {
        final java.util.List<Object[]> chain = new java.util.ArrayList<>();
        while (in.readBoolean()) {
            if (chain.size() >= MAX_CAUSES) {
                throw new dev.sharray.reducers.MalformedDataException("exception cause chain longer than " + MAX_CAUSES);
            }
            final String className = in.readString();
            final String message = in.readString();
            final int n = in.readCount(16);
            if (n > MAX_FRAMES) {
                throw new dev.sharray.reducers.MalformedDataException("stack trace of " + n + " frames");
            }
            final StackTraceElement[] frames = new StackTraceElement[n];
            for (int i = 0; i < n; i++) {
                final String cls = in.readString();
                final String method = in.readString();
                final String file = in.readString();
                final int line = in.readInt();
                frames[i] = new StackTraceElement(cls == null ? "?" : cls, method == null ? "?" : method, file, line);
            }
            chain.add(new Object[] {className == null ? "?" : className, message, frames});
        }
        if (chain.isEmpty()) {
            throw new dev.sharray.reducers.MalformedDataException("error result without an exception");
        }
        RemoteTaskException cause = null;
        for (int i = chain.size() - 1; i >= 0; i--) {
            final Object[] e = chain.get(i);
            cause = new RemoteTaskException((String) e[0], (String) e[1], (StackTraceElement[]) e[2], cause);
        }
        return cause;
    }
}

package dev.sharray.pool;

import dev.sharray.reducers.ValueReader;
import dev.sharray.reducers.ValueWriter;

/**
 * Writes an exception as plain data (class name, message, stack trace, cause chain) and rebuilds it as
 * a {@link RemoteTaskException}: no exception object is ever deserialized, and the remote class need
 * not exist on the reading side.
 */
final class RemoteErrors {
    /**
     * Entries an error report carries. A longer chain keeps its first {@code MAX_CAUSES - 2} exceptions, then one
     * entry saying how many were left out, then its root cause: the innermost exception usually says what went wrong.
     */
    static final int MAX_CAUSES = 8;
    /** How far a chain is followed looking for its root cause: a user's {@code getCause()} may build an endless one. */
    private static final int MAX_CHAIN_WALK = 1024;
    /** The class name of the entry standing for the causes a long chain leaves out. */
    static final String OMITTED_CAUSES = "...";
    private static final int MAX_FRAMES = 1024;
    private static final StackTraceElement[] NO_FRAMES = new StackTraceElement[0];

    private RemoteErrors() {
    }

    /**
     * Writes {@code t} and its causes. A user's exception may override its accessors: one that throws or answers
     * null is written as what it could give (a placeholder message, no frames), never as a failure of the worker.
     */
    static void write(Throwable t, ValueWriter out) {
        final java.util.List<Throwable> chain = chainOf(t);
        final int n = chain.size();
        if (n <= MAX_CAUSES) {
            for (Throwable e : chain) {
                writeEntry(e, out);
            }
        } else {
            for (int i = 0; i < MAX_CAUSES - 2; i++) {
                writeEntry(chain.get(i), out);
            }
            final int omitted = n - (MAX_CAUSES - 1);
            out.writeBoolean(true);
            out.writeString(OMITTED_CAUSES);
            out.writeString(omitted + " more cause" + (omitted == 1 ? "" : "s") + " left out; " + (n < MAX_CHAIN_WALK
                ? "the next is the root cause" : "the chain goes on past " + MAX_CHAIN_WALK + " causes; the next is the last followed"));
            out.writeInt(0);
            writeEntry(chain.get(n - 1), out);
        }
        out.writeBoolean(false);
    }

    /** @return {@code t} and its causes, each once: a cycle ends where it comes back, an endless chain at a bound */
    private static java.util.List<Throwable> chainOf(Throwable t) {
        final java.util.List<Throwable> chain = new java.util.ArrayList<>();
        final java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable e = t; e != null && chain.size() < MAX_CHAIN_WALK && seen.add(e); e = causeOf(e)) {
            chain.add(e);
        }
        return chain;
    }

    private static void writeEntry(Throwable e, ValueWriter out) {
        out.writeBoolean(true);
        out.writeString(encodable(e instanceof RemoteTaskException ? ((RemoteTaskException) e).remoteClassName() : e.getClass().getName()));
        out.writeString(encodable(messageOf(e)));
        final StackTraceElement[] frames = framesOf(e);
        final int n = Math.min(frames.length, MAX_FRAMES);
        out.writeInt(n);
        for (int i = 0; i < n; i++) {
            final StackTraceElement f = frames[i];
            out.writeString(f == null ? "?" : encodable(f.getClassName()));
            out.writeString(f == null ? "?" : encodable(f.getMethodName()));
            out.writeString(f == null ? null : encodable(f.getFileName()));
            out.writeInt(f == null ? -1 : f.getLineNumber());
        }
    }

    /** Writes only {@code t}'s class name: what is left when even {@link #write} failed. */
    static void writeClassOnly(Throwable t, Throwable failure, ValueWriter out) {
        out.writeBoolean(true);
        out.writeString(encodable(t.getClass().getName()));
        out.writeString("<the exception could not be written: " + failure.getClass().getName() + ">");
        out.writeInt(0);
        out.writeBoolean(false);
    }

    /**
     * @return {@code s} with each unpaired surrogate replaced by U+FFFD: UTF-8 cannot encode one, and the writer refuses
     *     it, which would cost the report its message, stack trace and causes (a message quoting text that was cut in
     *     the middle of a surrogate pair, or a class file's name holding one)
     */
    static String encodable(String s) {
        if (s == null) {
            return null;
        }
        final int n = s.length();
        StringBuilder sb = null;
        for (int i = 0; i < n; i++) {
            final char c = s.charAt(i);
            if (!Character.isSurrogate(c)) {
                if (sb != null) {
                    sb.append(c);
                }
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                if (sb != null) {
                    sb.append(c).append(s.charAt(i + 1));
                }
                i++;
            } else {
                if (sb == null) {
                    sb = new StringBuilder(n).append(s, 0, i);
                }
                sb.append('\uFFFD');
            }
        }
        return sb == null ? s : sb.toString();
    }

    private static String messageOf(Throwable e) {
        try {
            return e instanceof RemoteTaskException ? ((RemoteTaskException) e).remoteMessage() : e.getMessage();
        } catch (Throwable failure) {
            return "<getMessage() threw " + failure.getClass().getName() + ">";
        }
    }

    private static StackTraceElement[] framesOf(Throwable e) {
        try {
            final StackTraceElement[] frames = e.getStackTrace();
            return frames != null ? frames : NO_FRAMES;
        } catch (Throwable failure) {
            return NO_FRAMES;
        }
    }

    private static Throwable causeOf(Throwable e) {
        try {
            final Throwable cause = e.getCause();
            return cause == e ? null : cause;
        } catch (Throwable failure) {
            return null;
        }
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

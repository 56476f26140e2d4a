package dev.sharray.pool;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What {@code mvn exec:java} does: runs a main class loaded, with the whole application classpath, by a child class
 * loader, while {@code java.class.path} names only the host's jar (here the folder of this one class). References no
 * sharray class: the system class loader cannot load any.
 */
public final class ExecJavaLike {
    private ExecJavaLike() {
    }

    /** @param args the application classpath, its main class, then its arguments */
    public static void main(String[] args) throws Exception {
        final List<URL> urls = new ArrayList<>();
        for (String entry : args[0].split(java.io.File.pathSeparator)) {
            urls.add(Path.of(entry).toUri().toURL());
        }
        final URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getSystemClassLoader());
        Thread.currentThread().setContextClassLoader(loader);
        Class.forName(args[1], true, loader).getMethod("main", String[].class)
            .invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
    }
}

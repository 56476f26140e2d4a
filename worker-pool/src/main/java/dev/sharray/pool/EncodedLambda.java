package dev.sharray.pool;

import dev.sharray.reducers.MalformedDataException;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * A serializable lambda inside a function's bytes, in place of its {@link SerializedLambda}: the same fields,
 * but the capturing class (the class whose code wrote the lambda) travels by name. A {@code SerializedLambda}
 * holds that class as a class reference, which the reading side's filter must then admit; it cannot tell a
 * reference from an instance, so it admits no {@code Serializable} class that is not a function, and a lambda
 * written in a {@code Serializable} class, an enum or a record that implements it was refused. By name, the
 * class is only looked up, and asked to rebuild its own lambda, as Java serialization itself would.
 * The captured arguments cross as before (through {@code replaceObject}, as the reducers' placeholders).
 */
final class EncodedLambda implements Serializable {
    private static final long serialVersionUID = 1L;
    private transient String capturingClass;
    private transient String functionalInterfaceClass;
    private transient String functionalInterfaceMethodName;
    private transient String functionalInterfaceMethodSignature;
    private transient int implMethodKind;
    private transient String implClass;
    private transient String implMethodName;
    private transient String implMethodSignature;
    private transient String instantiatedMethodType;
    private transient Object[] capturedArgs;

    private EncodedLambda() {
    }

    /** @return the encoding of {@code lambda} */
    static EncodedLambda of(SerializedLambda lambda) {
        final EncodedLambda e = new EncodedLambda();
        e.capturingClass = lambda.getCapturingClass(); // a binary name with '/'
        e.functionalInterfaceClass = lambda.getFunctionalInterfaceClass();
        e.functionalInterfaceMethodName = lambda.getFunctionalInterfaceMethodName();
        e.functionalInterfaceMethodSignature = lambda.getFunctionalInterfaceMethodSignature();
        e.implMethodKind = lambda.getImplMethodKind();
        e.implClass = lambda.getImplClass();
        e.implMethodName = lambda.getImplMethodName();
        e.implMethodSignature = lambda.getImplMethodSignature();
        e.instantiatedMethodType = lambda.getInstantiatedMethodType();
        e.capturedArgs = new Object[lambda.getCapturedArgCount()];
        for (int i = 0; i < e.capturedArgs.length; i++) {
            e.capturedArgs[i] = lambda.getCapturedArg(i);
        }
        return e;
    }

    /**
     * Rebuilds the lambda: its capturing class, loaded from {@code loader} without running its static
     * initialiser, rebuilds it with its {@code $deserializeLambda$}, which checks the fields against the
     * lambdas that class really contains.
     *
     * @throws MalformedDataException when the class is missing, writes no serializable lambda, or refuses these fields
     */
    Object rebuild(ClassLoader loader) {
        final String name = capturingClass.replace('/', '.');
        final Class<?> capturing;
        final Method deserialize;
        try {
            capturing = Class.forName(name, false, loader);
            deserialize = capturing.getDeclaredMethod("$deserializeLambda$", SerializedLambda.class);
            deserialize.setAccessible(true);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new MalformedDataException(FunctionCodec.unloadable("lambda of class " + name, e), e);
        } catch (NoSuchMethodException | RuntimeException e) {
            throw new MalformedDataException("lambda of class " + name + ", which holds no serializable lambda it"
                + " can rebuild here: " + e, e);
        }
        final SerializedLambda lambda = new SerializedLambda(capturing, functionalInterfaceClass,
            functionalInterfaceMethodName, functionalInterfaceMethodSignature, implMethodKind, implClass,
            implMethodName, implMethodSignature, instantiatedMethodType, capturedArgs);
        try {
            return deserialize.invoke(null, lambda);
        } catch (InvocationTargetException e) {
            throw new MalformedDataException("lambda of class " + name + " refused: " + e.getCause() + hint(e.getCause()),
                e.getCause());
        } catch (IllegalAccessException | RuntimeException e) {
            throw new MalformedDataException("lambda of class " + name + " refused: " + e, e);
        }
    }

    /**
     * What to check when the capturing class holds no lambda of these fields ({@code $deserializeLambda$} throws
     * "Invalid lambda deserialization"): the workers run another build of the class, or a shaded jar relocated
     * {@code dev.sharray}, whose class names maven-shade rewrites in {@code $deserializeLambda$} but not the method
     * descriptors it compares ({@code (Ldev/sharray/SharedArray;)...}): no serializable lambda survives that.
     */
    private static String hint(Throwable refusal) {
        if (!(refusal instanceof IllegalArgumentException) || !"Invalid lambda deserialization".equals(refusal.getMessage())) {
            return "";
        }
        return " (the workers' copy of the class has no such lambda: they run another build of it, or a shaded jar"
            + " relocated dev.sharray, which serializable lambdas cannot survive: do not relocate dev.sharray)";
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        out.writeUTF(capturingClass);
        out.writeUTF(functionalInterfaceClass);
        out.writeUTF(functionalInterfaceMethodName);
        out.writeUTF(functionalInterfaceMethodSignature);
        out.writeInt(implMethodKind);
        out.writeUTF(implClass);
        out.writeUTF(implMethodName);
        out.writeUTF(implMethodSignature);
        out.writeUTF(instantiatedMethodType);
        out.writeObject(capturedArgs); // each argument through replaceObject, as in a SerializedLambda
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        capturingClass = in.readUTF();
        functionalInterfaceClass = in.readUTF();
        functionalInterfaceMethodName = in.readUTF();
        functionalInterfaceMethodSignature = in.readUTF();
        implMethodKind = in.readInt();
        implClass = in.readUTF();
        implMethodName = in.readUTF();
        implMethodSignature = in.readUTF();
        instantiatedMethodType = in.readUTF();
        final Object args = in.readObject();
        if (!(args instanceof Object[])) {
            throw new InvalidObjectException("a lambda's captured arguments are " + (args == null ? "null" : args.getClass().getName()));
        }
        capturedArgs = (Object[]) args;
    }
}

package dev.sharray.reducers;

import java.lang.reflect.Constructor;
import java.lang.reflect.InaccessibleObjectException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;

/**
 * Writes a record as its components and rebuilds it through its canonical constructor, so the
 * record's own validation runs on the receiving side. Built once per record class and cached.
 */
final class RecordCodec {
    private final Class<?> type;
    private final Method[] accessors;
    private final Class<?>[] componentTypes;
    private final Constructor<?> constructor;

    private RecordCodec(Class<?> type) {
        this.type = type;
        try {
            final RecordComponent[] components = type.getRecordComponents();
            accessors = new Method[components.length];
            componentTypes = new Class<?>[components.length];
            for (int i = 0; i < components.length; i++) {
                accessors[i] = components[i].getAccessor();
                accessors[i].setAccessible(true);
                componentTypes[i] = components[i].getType();
            }
            constructor = type.getDeclaredConstructor(componentTypes);
            constructor.setAccessible(true);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("record " + type.getName() + " has no canonical constructor", e);
        } catch (InaccessibleObjectException | SecurityException e) {
            // a record in a module package not open to us (a JDK internal one named by hostile input, or a
            // user's record in a named module): say so instead of letting the reflection exception escape
            throw new IllegalStateException("record " + type.getName() + " cannot be accessed: its package is not open"
                + " to sharray (" + e.getMessage() + ")", e);
        } catch (LinkageError e) {
            // a class its components or constructor name is missing here (an optional dependency absent)
            throw new IllegalStateException("record " + type.getName() + " cannot be used here: " + e, e);
        }
    }

    /**
     * @throws IllegalStateException when the record's accessors or canonical constructor cannot be made
     *     accessible (its package is not open to this module)
     */
    static RecordCodec of(Class<?> type) {
        return new RecordCodec(type);
    }

    void write(Object record, ValueWriter out) {
        out.writeString(type.getName());
        out.writeInt(accessors.length);
        for (int i = 0; i < accessors.length; i++) {
            final Method accessor = accessors[i];
            final Object component;
            try {
                component = accessor.invoke(record);
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new ReducerException("cannot read component " + accessor.getName() + " of " + type.getName(), e);
            }
            // a TreeMap component arrives as a LinkedHashMap: the canonical constructor could not take it there
            out.reducers().checkArrivesAs(componentTypes[i], component, "component " + accessor.getName()
                + " of record " + type.getName());
            out.writeValue(component);
        }
    }

    /** Reads the components (the class name was read by the caller) and calls the canonical constructor. */
    Object read(ValueReader in) {
        final int n = in.readCount(1);
        if (n != componentTypes.length) {
            throw new MalformedDataException("record " + type.getName() + " has " + componentTypes.length
                + " components, input has " + n);
        }
        final Object[] args = new Object[n];
        for (int i = 0; i < n; i++) {
            final Object v = in.readValue();
            if (!fits(componentTypes[i], v)) {
                throw new MalformedDataException("component " + i + " of record " + type.getName() + " is "
                    + (v == null ? "null" : v.getClass().getName()) + ", expected " + componentTypes[i].getName());
            }
            args[i] = v;
        }
        try {
            return constructor.newInstance(args);
        } catch (InvocationTargetException e) {
            throw new MalformedDataException("record " + type.getName() + " rejected its components: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new MalformedDataException("cannot build record " + type.getName(), e);
        } catch (ExceptionInInitializerError | NoClassDefFoundError e) {
            // the first instance initialises the class: a record named by hostile bytes may fail to
            throw new MalformedDataException("record " + type.getName() + " cannot be initialised: " + e, e);
        }
    }

    private static boolean fits(Class<?> type, Object v) {
        if (!type.isPrimitive()) {
            return v == null || type.isInstance(v);
        }
        if (v == null) {
            return false;
        }
        final Class<?> c = v.getClass();
        return type == int.class ? c == Integer.class
            : type == long.class ? c == Long.class
            : type == double.class ? c == Double.class
            : type == boolean.class ? c == Boolean.class
            : type == float.class ? c == Float.class
            : type == short.class ? c == Short.class
            : type == byte.class ? c == Byte.class
            : type == char.class && c == Character.class;
    }
}

package dev.sqlagent.bus;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;

/**
 * JSON of a message record, derived from its components so that a field is declared once: the record
 * component is the field, its name in snake_case is the key ({@code gaveUp} → {@code gave_up}), in the
 * order declared. Values: strings, numbers, booleans, {@link JsonObject}, {@link JsonArray}, nested records
 * and lists of those. Reading is lenient as the bus's readers always were: a missing key is null, 0, false
 * or an empty list; a value of the wrong type is an {@link IllegalArgumentException} naming the key.
 */
public final class RecordJson {
  private RecordJson() {}

  /** One component: its key, accessor and how to read it. */
  private record Field(String key, RecordComponent component, boolean omitWhenNull) {}

  private record Shape(List<Field> fields, Constructor<?> constructor) {}

  private static final ClassValue<Shape> SHAPES = new ClassValue<>() {
    @Override
    protected Shape computeValue(Class<?> type) {
      if (!type.isRecord()) throw new IllegalArgumentException(type.getSimpleName() + " is not a record");
      RecordComponent[] components = type.getRecordComponents();
      List<Field> fields = new ArrayList<>();
      Class<?>[] types = new Class<?>[components.length];
      for (int i = 0; i < components.length; i++) {
        RecordComponent c = components[i];
        c.getAccessor().setAccessible(true);
        fields.add(new Field(snakeCase(c.getName()), c, c.isAnnotationPresent(OmitWhenNull.class)));
        types[i] = c.getType();
      }
      try {
        Constructor<?> constructor = type.getDeclaredConstructor(types);
        constructor.setAccessible(true);
        return new Shape(List.copyOf(fields), constructor);
      } catch (NoSuchMethodException e) {
        throw new IllegalStateException("no canonical constructor in " + type.getSimpleName(), e);
      }
    }
  };

  /** The keys of a record's JSON, in order. */
  public static List<String> keys(Class<? extends Record> type) {
    return SHAPES.get(type).fields().stream().map(Field::key).toList();
  }

  public static JsonObject toJson(Record message) {
    JsonObject json = new JsonObject();
    for (Field f : SHAPES.get(message.getClass()).fields()) {
      Object value = write(get(f, message));
      if (value != null || !f.omitWhenNull()) json.put(f.key(), value);
    }
    return json;
  }

  public static <R extends Record> R fromJson(Class<R> type, JsonObject json) {
    Shape shape = SHAPES.get(type);
    Object[] args = new Object[shape.fields().size()];
    for (int i = 0; i < args.length; i++) {
      Field f = shape.fields().get(i);
      args[i] = read(f.key(), json.getValue(f.key()), f.component().getType(), f.component().getGenericType());
    }
    try {
      return type.cast(shape.constructor().newInstance(args));
    } catch (InvocationTargetException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Object get(Field f, Record message) {
    try {
      return f.component().getAccessor().invoke(message);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Object write(Object value) {
    if (value instanceof Record r) return toJson(r);
    if (value instanceof List<?> list) {
      JsonArray out = new JsonArray();
      for (Object o : list) out.add(write(o));
      return out;
    }
    return value;
  }

  private static Object read(String key, Object value, Class<?> type, Type generic) {
    if (type == List.class) {
      if (value == null) return List.of();
      if (!(value instanceof JsonArray array)) throw wrongType(key, "a list");
      Type element = ((ParameterizedType) generic).getActualTypeArguments()[0];
      Class<?> elementType = element instanceof Class<?> c ? c : Object.class;
      List<Object> out = new ArrayList<>();
      for (Object o : array) out.add(read(key, o, elementType, elementType));
      return java.util.Collections.unmodifiableList(out);
    }
    if (type.isPrimitive()) {
      if (type == boolean.class) return value == null ? false : bool(key, value);
      if (value == null) value = 0;
      if (!(value instanceof Number n)) throw wrongType(key, "a number");
      if (type == int.class) return n.intValue();
      if (type == long.class) return n.longValue();
      return n.doubleValue();
    }
    if (value == null) return null;
    if (type == Boolean.class) return bool(key, value);
    if (Number.class.isAssignableFrom(type)) {
      if (!(value instanceof Number n)) throw wrongType(key, "a number");
      if (type == Integer.class) return n.intValue();
      if (type == Long.class) return n.longValue();
      return n.doubleValue();
    }
    if (type.isRecord()) {
      if (!(value instanceof JsonObject o)) throw wrongType(key, "an object");
      return fromJson(type.asSubclass(Record.class), o);
    }
    if (type == Object.class || type.isInstance(value)) return value;
    throw wrongType(key, type == String.class ? "a string" : type == JsonObject.class ? "an object"
        : type == JsonArray.class ? "a list" : "a " + type.getSimpleName());
  }

  private static boolean bool(String key, Object value) {
    if (!(value instanceof Boolean b)) throw wrongType(key, "true or false");
    return b;
  }

  private static IllegalArgumentException wrongType(String key, String expected) {
    return new IllegalArgumentException("\"" + key + "\" must be " + expected);
  }

  static String snakeCase(String name) {
    StringBuilder b = new StringBuilder(name.length() + 4);
    for (char c : name.toCharArray()) {
      if (Character.isUpperCase(c)) b.append('_').append(Character.toLowerCase(c));
      else b.append(c);
    }
    return b.toString();
  }
}

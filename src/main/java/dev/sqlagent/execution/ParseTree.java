package dev.sqlagent.execution;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import net.sf.jsqlparser.parser.Node;
import net.sf.jsqlparser.parser.Token;

/**
 * The children of a node of a JSqlParser tree, found by reflection over its fields rather than its visitors, so no
 * node type a visitor forgets is skipped: the gate's {@link AstFacts} and the workload's learning walk trees this way.
 */
public final class ParseTree {
  private ParseTree() {}

  private static final ClassValue<List<Field>> FIELDS = new ClassValue<>() {
    @Override
    protected List<Field> computeValue(Class<?> type) {
      List<Field> out = new ArrayList<>();
      for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
        for (Field f : c.getDeclaredFields()) {
          if (Modifier.isStatic(f.getModifiers())) continue;
          if (Node.class.isAssignableFrom(f.getType()) || Token.class.isAssignableFrom(f.getType())) continue;
          if (f.getType().isPrimitive() || f.getType() == String.class || f.getType().isEnum()) continue;
          f.setAccessible(true);
          out.add(f);
        }
      }
      return out;
    }
  };

  /** Whether {@code o} is a node of the parser's tree (its fields are walked; a collection's elements are not nodes). */
  public static boolean isNode(Object o) {
    return o.getClass().getName().startsWith("net.sf.jsqlparser.");
  }

  /**
   * What is directly below {@code o}, nulls left out, in field order: a collection's elements, a map's keys and
   * values, an array's elements, a node's non-null fields (not the parser's tokens); nothing for anything else.
   */
  public static List<Object> children(Object o) {
    List<Object> out = new ArrayList<>();
    if (o instanceof Collection<?> c) {
      for (Object e : c) if (e != null) out.add(e);
    } else if (o instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (e.getKey() != null) out.add(e.getKey());
        if (e.getValue() != null) out.add(e.getValue());
      }
    } else if (o instanceof Map.Entry<?, ?> e) {
      if (e.getKey() != null) out.add(e.getKey());
      if (e.getValue() != null) out.add(e.getValue());
    } else if (o.getClass().isArray()) {
      if (!o.getClass().getComponentType().isPrimitive()) {
        for (int i = 0; i < Array.getLength(o); i++) {
          Object e = Array.get(o, i);
          if (e != null) out.add(e);
        }
      }
    } else if (isNode(o)) {
      for (Field f : FIELDS.get(o.getClass())) {
        try {
          Object v = f.get(o);
          if (v != null) out.add(v);
        } catch (IllegalAccessException e) {
          // not readable: nothing below it is needed
        }
      }
    }
    return out;
  }
}

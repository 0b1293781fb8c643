package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.CatalogueHolder;
import dev.sqlagent.catalogue.CatalogueSnapshot;
import dev.sqlagent.policy.SensitiveColumns;
import io.vertx.core.Future;
import java.util.List;
import java.util.function.Function;

/**
 * The catalogue version retrieval answers from, with the notes laid over it. Retrieval does not read the schema
 * itself: it follows the process's catalogue ({@link CatalogueHolder}), one version at a time, so a version that
 * arrives while the previous one is still being embedded waits for it instead of racing it. What is derived from a
 * version with the notes (the annotated catalogue, its sensitive columns, a database role's view) is made once per
 * version and kept by the snapshot.
 *
 * <p>Touched on the retrieval verticle's context only.
 */
final class FollowedCatalogue {

  /** What {@link #annotated} derives from a snapshot, with these notes. */
  private record Annotated(TableNotes notes) {}

  /** What {@link #sensitive} derives from a snapshot, with these notes. */
  private record Sensitive(TableNotes notes) {}

  /** A user's role's view of a snapshot, with these notes. */
  private record AnnotatedFor(TableNotes notes, String role) {}

  private final CatalogueHolder holder;
  private final TableNotes notes;
  private CatalogueSnapshot snapshot;
  private Catalogue current;
  /** The last follow of a new version: the next waits for it. */
  private Future<Void> following;

  FollowedCatalogue(CatalogueHolder holder, TableNotes notes) {
    this.holder = holder;
    this.notes = notes;
  }

  /**
   * Takes the catalogue's current version and checks the notes against it: a notes file that names what is not
   * there is a mistake to fix now, not a silent no-op. Fails when the role cannot read the catalogue either.
   * Later versions are followed once {@code first} (what the first version needs, the index) is done with it.
   */
  Future<Catalogue> start(Function<Catalogue, Future<?>> first) {
    return holder.current().compose(read -> {
      snapshot = read;
      current = annotated(read);
      List<String> problems = notes.validate(current);
      if (!problems.isEmpty()) {
        return Future.failedFuture(new IllegalArgumentException("the notes file does not match the database: "
            + String.join("; ", problems)));
      }
      following = first.apply(current).<Void>mapEmpty().otherwiseEmpty();
      return Future.succeededFuture(current);
    });
  }

  /**
   * Follows the catalogue to {@code next}, one follow at a time: a version already followed (or older) changes
   * nothing; one of the same shape is only taken, unless {@code always} (an asked-for refresh); one of a new shape
   * is taken and handed to {@code changed} (embed what changed, read the values again), which the next follow
   * waits for.
   */
  Future<Void> follow(CatalogueSnapshot next, boolean always, Function<Catalogue, Future<Void>> changed) {
    following = following.transform(previous -> {
      if (next == null || next.version() <= snapshot.version()) return Future.succeededFuture();
      boolean same = next.fingerprint() == snapshot.fingerprint();
      snapshot = next;
      current = annotated(next);
      if (same && !always) return Future.succeededFuture();
      return changed.apply(current);
    });
    return following;
  }

  /** The version followed now, with the notes. */
  Catalogue current() {
    return current;
  }

  /** The snapshot followed now. */
  CatalogueSnapshot snapshot() {
    return snapshot;
  }

  /** The newest version the process's catalogue holds (perhaps not followed yet). */
  CatalogueSnapshot newest() {
    return holder.snapshot();
  }

  /** Reads the target's catalogue again (the gate of this process follows it at once); follow the result. */
  Future<CatalogueSnapshot> refresh() {
    return holder.refresh();
  }

  TableNotes notes() {
    return notes;
  }

  /** The notes' sensitive columns in the version followed, resolved once per version. */
  SensitiveColumns sensitive() {
    return snapshot.derive(new Sensitive(notes), x -> SensitiveColumns.of(notes.notes(), x.catalogue()));
  }

  /** The version followed as a user's database role sees it (null: the agent role's own), with the notes. */
  Future<Catalogue> seenBy(String role) {
    if (role == null) return Future.succeededFuture(current);
    return snapshot.deriveFuture(new AnnotatedFor(notes, role), s -> s.forRole(role).map(notes::annotate));
  }

  /** A snapshot's catalogue with the notes, made once per snapshot. */
  private Catalogue annotated(CatalogueSnapshot s) {
    return s.derive(new Annotated(notes), x -> notes.annotate(x.catalogue()));
  }
}

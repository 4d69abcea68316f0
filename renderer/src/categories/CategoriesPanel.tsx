import '../ui/panels.css';
import { useId, useState, type FormEvent } from 'react';
import type { CategoryReply } from '../../../shared/wire';
import { useConfirm } from '../ui/Confirm';
import { Field, FormError } from '../ui/Field';
import { useAddCategory, useDeleteCategory, useRenameCategory } from './mutations';
import { useCategories } from './queries';

/** The categories of one client application: its own (editable) and the built-in system ones. */
export function CategoriesPanel({ clientId }: { clientId: string }) {
  const titleId = useId();
  const categories = useCategories(clientId);
  const own = categories.data?.filter((c) => !c.is_system_category) ?? [];
  const system = categories.data?.filter((c) => c.is_system_category) ?? [];

  return (
    <section className="panel admin-panel" aria-labelledby={titleId} key={clientId}>
      <h2 id={titleId}>Categories</h2>
      <AddCategory clientId={clientId} />
      {categories.isPending && <p>Loading categories…</p>}
      {categories.isError && <FormError error={categories.error.message} />}
      {categories.isSuccess && (
        <>
          <div className="panel-block">
            <h3>This client's categories</h3>
            {own.length === 0 ? (
              <p className="note">None yet: add one above.</p>
            ) : (
              <ul className="items" aria-label="This client's categories">
                {own.map((c) => (
                  // Keyed by description too: a rename saved elsewhere resets the field.
                  <OwnCategory key={`${c.Id}:${c.Description}`} clientId={clientId} category={c} />
                ))}
              </ul>
            )}
          </div>
          <div className="panel-block">
            <h3>System categories</h3>
            <p className="note">Built in and shared by every client application; they cannot be changed.</p>
            <ul className="items compact" aria-label="System categories">
              {system.map((c) => (
                <li key={c.Id} className="item">
                  <span className="item-main">{c.Description}</span>
                  <span className="tag">system</span>
                </li>
              ))}
            </ul>
          </div>
        </>
      )}
    </section>
  );
}

function AddCategory({ clientId }: { clientId: string }) {
  const add = useAddCategory();
  const [desc, setDesc] = useState('');
  const errors = add.errors;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (add.isPending) return;
    add.submit({ clientId, desc }, { onSuccess: () => setDesc('') });
  };

  return (
    <form aria-label="Add a category" className="panel-form" onSubmit={submit} noValidate>
      <FormError error={errors.form} />
      <Field label="Description" name="desc" value={desc} onChange={setDesc} error={errors.field('desc')} required hint="1 to 100 characters." />
      <div className="actions">
        <button type="submit">Add category</button>
      </div>
    </form>
  );
}

function OwnCategory({ clientId, category }: { clientId: string; category: CategoryReply }) {
  const update = useRenameCategory();
  const remove = useDeleteCategory();
  const confirm = useConfirm();
  const [desc, setDesc] = useState(category.Description);
  const updateErrors = update.errors;
  const removeErrors = remove.errors;

  const save = (e: FormEvent) => {
    e.preventDefault();
    if (update.isPending) return;
    update.submit({ clientId, category: category.Id, desc });
  };

  const onDelete = async () => {
    if (remove.isPending) return;
    const question = { title: 'Delete a category', text: `Delete category ${category.Description}? POIs that have it keep showing it, but it cannot be given to POIs any more.`, yes: 'Delete category', no: 'Keep', destructive: true };
    if (!(await confirm(question))) return;
    remove.mutate({ clientId, category: category.Id });
  };

  return (
    <li className="item item-form">
      <form aria-label={`Rename category ${category.Description}`} className="inline-form" onSubmit={save} noValidate>
        <FormError error={updateErrors.form ?? removeErrors.form} />
        <Field label="Description" name="desc" value={desc} onChange={setDesc} error={updateErrors.field('desc')} required />
        <div className="actions">
          <button type="submit">Save</button>
          <button type="button" className="danger" aria-label={`Delete category ${category.Description}`} onClick={() => void onDelete()}>
            Delete
          </button>
          <span className="id">#{category.Id}</span>
        </div>
      </form>
    </li>
  );
}

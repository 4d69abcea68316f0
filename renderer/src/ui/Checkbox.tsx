interface CheckboxProps {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  name?: string;
  describedBy?: string;
}

/** A checkbox inside its label, so the label names it and a click on the words toggles it. */
export function Checkbox({ label, checked, onChange, disabled, name, describedBy }: CheckboxProps) {
  return (
    <label className="check">
      <input type="checkbox" name={name} checked={checked} disabled={disabled} aria-describedby={describedBy} onChange={(e) => onChange(e.target.checked)} />{' '}
      {label}
    </label>
  );
}

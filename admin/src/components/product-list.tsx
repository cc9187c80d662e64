import type { Product } from '../records.js';
import { priceText } from '../selling.js';
import { DataTable } from './data-table.js';

const statusText: Record<Product['status'], string> = { active: 'Active', maintenance: 'Maintenance', retired: 'Retired' };

/** The tenant's products; a product's name is the button that shows its price, rates, occupancy and bookings. */
export function ProductList(props: { products: readonly Product[]; chosen: string | undefined; onChoose: (product: Product) => void }) {
  return (
    <DataTable caption="Products of this tenant" headings={['Name', 'City', 'Units', 'Price', 'Status', 'Published']}>
      {props.products.map((product) => (
        <tr key={product._id} class={product._id === props.chosen ? 'chosen' : ''}>
          <th scope="row">
            <button type="button" class="link" aria-pressed={product._id === props.chosen} onClick={() => props.onChoose(product)}>
              {product.name}
            </button>
          </th>
          <td>{product.city}</td>
          <td>{product.total_items}</td>
          <td class="money">{priceText(product)}</td>
          <td>{statusText[product.status]}</td>
          <td>{product.is_published ? 'Yes' : 'No'}</td>
        </tr>
      ))}
    </DataTable>
  );
}

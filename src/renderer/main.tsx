// The base sheet first: component sheets that follow may override its defaults.
import './styles/base.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { readBootData } from './app/bootData';
import { createHostClient } from './host-client';
import { connectStore, createAppStore, StoreProvider } from './store';

const client = createHostClient();
const store = createAppStore(client);
connectStore(store, client, readBootData());

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('index.html lacks #root');

createRoot(rootElement).render(
  <StrictMode>
    <StoreProvider store={store}>
      <App />
    </StoreProvider>
  </StrictMode>,
);

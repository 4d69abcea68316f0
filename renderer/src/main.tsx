import 'leaflet/dist/leaflet.css';
import './styles.css';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ConsoleTokenDialog } from './ConsoleTokenDialog';
import { takeTokenFromAddress } from './consoleToken';
import { openLinksInSystemBrowser } from './externalLinks';
import { inBrowserMode } from './transport';
import { ConfirmProvider } from './ui/Confirm';

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false, staleTime: 5_000 } },
});

// Before the map reads its `#map=` view from the address; and again when a `#token=` is pasted
// into the address bar of an open tab (this listener runs before the map's).
if (inBrowserMode) {
  takeTokenFromAddress();
  window.addEventListener('hashchange', takeTokenFromAddress);
}

openLinksInSystemBrowser();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <ConfirmProvider>
        <App />
      </ConfirmProvider>
      {inBrowserMode && <ConsoleTokenDialog />}
    </QueryClientProvider>
  </StrictMode>,
);
